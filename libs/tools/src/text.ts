/** A NUL byte in the first 8 KB is how git and grep tell a binary file from text; so do the tools. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

export const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The longest prefix of `text` within `maxBytes` of UTF-8, never splitting a character. */
export function takeBytes(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  const cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  return cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut;
}

/** Splits on LF and drops each line's CR, so CRLF files compare and patch like LF ones. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
