import { arrange, featuredPeer, gridFor, layerForWidth, type StageInput } from '../web/room/src/features/stage/arrangement';
import { sumInboundRtp } from '../web/room/src/receive-stats';
import { reconnectDelay } from '../web/room/src/reconnect-delay';

describe('the room’s stage: simulcast layers, grid and strip sizes, who is shown large', () => {
  it('a tile asks for the simulcast layer its width needs: low up to 400 px, medium up to 800 px, full beyond', () => {
    expect([1, 400, 401, 800, 801, 3840].map(layerForWidth)).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('the grid picks the column count that makes 16:9 tiles largest', () => {
    expect(gridFor(1, 1600, 900)).toEqual({ cols: 1, tileWidth: 1600 });
    // Four in a 16:9 area: two by two, limited by the height ((900 - 8) / 2 * 16 / 9 = 792.9).
    expect(gridFor(4, 1600, 900)).toEqual({ cols: 2, tileWidth: 792 });
    // A wide, low area puts two side by side; a tall, narrow one stacks them.
    expect(gridFor(2, 1600, 450).cols).toBe(2);
    expect(gridFor(3, 400, 1200).cols).toBe(1);
    expect(gridFor(0, 800, 600)).toEqual({ cols: 1, tileWidth: 800 });
  });

  const desktop: StageInput = { layout: 'grid', tiles: 4, screens: 0, hasSelfTile: true, phone: false, width: 1600, height: 900 };

  it('a grid on a desktop uses the grid’s tile width, never under 120 px', () => {
    expect(arrange(desktop)).toEqual({
      presenting: false,
      speakerView: false,
      stripEmpty: false,
      selfPip: false,
      oneOther: false,
      tileWidth: 792,
    });
    expect(arrange({ ...desktop, tiles: 30, width: 300, height: 200 }).tileWidth).toBe(120);
  });

  it('a screen share or the speaker layout puts the cameras in a strip: full width on a desktop, at most 160 px on a phone', () => {
    expect(arrange({ ...desktop, screens: 1 })).toMatchObject({ presenting: true, speakerView: false, tileWidth: 1600 });
    expect(arrange({ ...desktop, layout: 'speaker' })).toMatchObject({ presenting: false, speakerView: true, stripEmpty: false });
    // Phone, speaker layout, four people: three in the strip share 390 px minus two 8 px gaps.
    expect(arrange({ ...desktop, layout: 'speaker', phone: true, width: 390 }).tileWidth).toBe(Math.max(120, (390 - 16) / 3));
    expect(arrange({ ...desktop, layout: 'speaker', tiles: 2, phone: true, width: 390 }).tileWidth).toBe(160);
    // A share wins over the speaker layout.
    expect(arrange({ ...desktop, layout: 'speaker', screens: 1 })).toMatchObject({ presenting: true, speakerView: false });
  });

  it('alone in the speaker layout the strip is empty; with nobody on stage there is no speaker view', () => {
    expect(arrange({ ...desktop, layout: 'speaker', tiles: 1 })).toMatchObject({ speakerView: true, stripEmpty: true });
    expect(arrange({ ...desktop, layout: 'speaker', tiles: 0 })).toMatchObject({ speakerView: false, stripEmpty: false });
  });

  it('on a phone your own camera floats in a corner once someone else is there, and the grid is sized without it', () => {
    const phone = { ...desktop, phone: true, width: 390, height: 700 };
    expect(arrange({ ...phone, tiles: 2 })).toMatchObject({ selfPip: true, oneOther: true, tileWidth: gridFor(1, 390, 700).tileWidth });
    expect(arrange({ ...phone, tiles: 3 })).toMatchObject({ selfPip: true, oneOther: false, tileWidth: gridFor(2, 390, 700).tileWidth });
    expect(arrange({ ...phone, tiles: 1 }).selfPip).toBe(false);
    expect(arrange({ ...phone, tiles: 3, hasSelfTile: false }).selfPip).toBe(false);
    expect(arrange({ ...desktop, tiles: 2 }).selfPip).toBe(false);
  });

  it('the speaker layout shows the active speaker, else who was shown, else the first other person; yourself only when alone', () => {
    const ids = ['me', 'ann', 'bob'];
    expect(featuredPeer(ids, 'me', 'bob', 'ann')).toBe('bob');
    expect(featuredPeer(ids, 'me', 'me', 'ann')).toBe('ann');
    expect(featuredPeer(ids, 'me', null, 'gone')).toBe('ann');
    expect(featuredPeer(['me'], 'me', 'me', null)).toBe('me');
    expect(featuredPeer([], 'me', null, null)).toBeNull();
  });
});

describe('receive statistics: the inbound RTP streams summed per kind', () => {
  it('sums audio and video, keeps the widest frame and skips the bandwidth probe and other entries', () => {
    const report = [
      { type: 'inbound-rtp', kind: 'audio', bytesReceived: 100, packetsReceived: 10 },
      { type: 'inbound-rtp', kind: 'audio', bytesReceived: 50, packetsReceived: 5 },
      { type: 'inbound-rtp', kind: 'video', bytesReceived: 1000, framesDecoded: 30, frameWidth: 320 },
      { type: 'inbound-rtp', kind: 'video', bytesReceived: 2000, framesDecoded: 60, frameWidth: 1280 },
      { type: 'inbound-rtp', kind: 'video', mid: 'probator', bytesReceived: 99999, framesDecoded: 0 },
      { type: 'transport', bytesReceived: 5 },
    ];
    expect(sumInboundRtp(report)).toEqual({
      audio: { bytesReceived: 150, packetsReceived: 15, streams: 2 },
      video: { bytesReceived: 3000, framesDecoded: 90, streams: 2, frameWidth: 1280 },
    });
    expect(sumInboundRtp([])).toEqual({
      audio: { bytesReceived: 0, packetsReceived: 0, streams: 0 },
      video: { bytesReceived: 0, framesDecoded: 0, streams: 0, frameWidth: 0 },
    });
  });
});

describe('reconnecting: how long the page waits before each attempt', () => {
  it('250 ms, 500 ms, 1 s, 2 s, then 3 s each time, plus up to 30 % at random', () => {
    const none = () => 0;
    expect([0, 1, 2, 3, 4, 5, 50].map((attempt) => reconnectDelay(attempt, none))).toEqual([250, 500, 1000, 2000, 3000, 3000, 3000]);
    expect(reconnectDelay(0, () => 1)).toBe(325);
    expect(reconnectDelay(9, () => 0.5)).toBe(3450);
  });
});
