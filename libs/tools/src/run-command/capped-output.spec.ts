import { CappedOutput } from './capped-output';

const feed = (limit: number, chunks: string[]) => {
  const output = new CappedOutput(limit);
  chunks.forEach((c) => output.push(Buffer.from(c)));
  return output;
};

describe('CappedOutput', () => {
  it('keeps everything up to the limit', () => {
    const output = feed(10, ['abc', 'defghij']);
    expect([output.text(), output.truncated]).toEqual(['abcdefghij', false]);
  });

  it('keeps the first and last half past the limit and counts what it left out', () => {
    const output = feed(10, ['01234', '56789', 'abcdefghij', 'KLMNO']);
    expect(output.truncated).toBe(true);
    expect(output.text()).toBe('01234\n[… 15 bytes of output omitted …]\nKLMNO');
  });

  it('takes the tail across chunk boundaries', () => {
    expect(feed(4, ['aaaa', 'b', 'c', 'd']).text()).toBe('aa\n[… 3 bytes of output omitted …]\ncd');
  });
});
