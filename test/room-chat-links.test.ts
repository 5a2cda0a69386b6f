import { chatSegments, webAddress } from '../web/room/src/ui/chat-text';

describe('links in the room’s chat: which parts of a message become links', () => {
  it('an http(s) address inside a sentence is a link, without the sentence’s punctuation', () => {
    expect(chatSegments('Slides: https://example.com/deck?page=2#top. See you')).toEqual([
      { text: 'Slides: ' },
      { text: 'https://example.com/deck?page=2#top', href: 'https://example.com/deck?page=2#top' },
      { text: '. See you' },
    ]);
    expect(chatSegments('(see http://example.org/a_(b)) and HTTPS://Example.com!')).toEqual([
      { text: '(see ' },
      { text: 'http://example.org/a_(b)', href: 'http://example.org/a_(b)' },
      { text: ') and ' },
      { text: 'HTTPS://Example.com', href: 'https://example.com/' },
      { text: '!' },
    ]);
  });

  it('other schemes and markup stay plain text', () => {
    for (const hostile of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">click</a>',
      'vbscript:msgbox(1) file:///etc/passwd ftp://example.com',
      'http:// nothing here, https://',
    ]) {
      expect(chatSegments(hostile)).toEqual([{ text: hostile }]);
    }
  });

  it('an address hidden in markup is cut at the markup, and the markup stays text', () => {
    expect(chatSegments('<a href="https://evil.example/x">https://ok.example</a>')).toEqual([
      { text: '<a href="' },
      { text: 'https://evil.example/x', href: 'https://evil.example/x' },
      { text: '">' },
      { text: 'https://ok.example', href: 'https://ok.example/' },
      { text: '</a>' },
    ]);
  });

  it('the whole message survives: the segments put together are the message', () => {
    const message = 'a https://x.example/1, b http://y.example:8080/p?q=1 c javascript:void(0) d';
    expect(
      chatSegments(message)
        .map((s) => s.text)
        .join(''),
    ).toBe(message);
  });

  it('webAddress accepts only http and https', () => {
    expect(webAddress('https://example.com')).toBe('https://example.com/');
    expect(webAddress('javascript:alert(1)')).toBeNull();
    expect(webAddress('data:text/plain,hi')).toBeNull();
    expect(webAddress('not a url')).toBeNull();
  });
});
