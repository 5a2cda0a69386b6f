import { chatSegments } from './chat-text';

/** The message as DOM nodes: text nodes, and `<a target="_blank" rel="noopener noreferrer">` for http(s) addresses. */
export function chatNodes(message: string): Node[] {
  return chatSegments(message).map((segment) => {
    if (!('href' in segment)) return document.createTextNode(segment.text);
    const link = document.createElement('a');
    link.href = segment.href;
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    link.textContent = segment.text;
    return link;
  });
}
