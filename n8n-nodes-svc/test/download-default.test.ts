import { defaultRecording } from '../nodes/Svc/actions/recording/download.operation';

// Lists as svc answers them: newest first.
const composite = (id: string, status: string) => ({ id, kind: 'video', status, source_recording_id: `${id}_src`, tracks: null });
const tracks = (id: string, status: string) => ({ id, kind: 'tracks', status, source_recording_id: null, tracks: [] });

describe('Recording → Download with an empty Recording ID', () => {
  it('takes the newest ready composite, not the per-track source that is ready first or newer', () => {
    expect(
      defaultRecording([tracks('rec_4', 'ready'), composite('rec_3', 'ready'), tracks('rec_2', 'ready'), composite('rec_1', 'ready')])?.id,
    ).toBe('rec_3');
  });

  it('takes an older ready composite while the newest one still renders', () => {
    expect(defaultRecording([composite('rec_3', 'processing'), tracks('rec_2', 'ready'), composite('rec_1', 'ready')])?.id).toBe('rec_1');
  });

  it('finds nothing while the only composite renders, rather than handing over the Matroska source', () => {
    expect(defaultRecording([composite('rec_2', 'processing'), tracks('rec_1', 'ready')])).toBeUndefined();
  });

  it("takes the main room's composite, not a newer one of a breakout room", () => {
    const breakout = { ...composite('rec_3', 'ready'), breakout_room_id: 'brk_1' };
    expect(defaultRecording([breakout, composite('rec_2', 'ready'), tracks('rec_1', 'ready')])?.id).toBe('rec_2');
  });

  it('takes the newest ready tracks file of a meeting recorded before composites existed', () => {
    expect(defaultRecording([tracks('rec_2', 'failed'), tracks('rec_1', 'ready')])?.id).toBe('rec_1');
  });
});
