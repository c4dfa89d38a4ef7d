/** One Server-Sent Event: `id` is the log position the stream resumes after (`Last-Event-ID`). */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/**
 * The text/event-stream format, read incrementally: chunks may split a line or a message anywhere.
 * Comments (heartbeats) and `retry:` lines carry nothing for the console and are skipped.
 */
export function sseParser(): { push(chunk: string): SseMessage[]; end(): SseMessage[] } {
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  const flush = (out: SseMessage[]) => {
    if (data.length > 0 || event) out.push({ ...(id === undefined ? {} : { id }), event: event || 'message', data: data.join('\n') });
    event = '';
    data = [];
  };
  const line = (text: string, out: SseMessage[]) => {
    if (text === '') return flush(out);
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  };
  return {
    push(chunk) {
      const out: SseMessage[] = [];
      buffer += chunk;
      let end: number;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
        if (buffer[end] === '\r' && end === buffer.length - 1) break;
        const width = buffer.startsWith('\r\n', end) ? 2 : 1;
        line(buffer.slice(0, end), out);
        buffer = buffer.slice(end + width);
      }
      return out;
    },
    end() {
      // An unterminated message at the end of the stream is dropped, as the format says.
      buffer = '';
      event = '';
      data = [];
      return [];
    },
  };
}
