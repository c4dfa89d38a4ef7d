import { containsReasoning, findBlocks, stripReasoning } from './block';

describe('findBlocks', () => {
  it('finds closed blocks in order and an unterminated last one', () => {
    const text = 'a <ide_reasoning>one</ide_reasoning> b <IDE_REASONING >two</ ide_reasoning> c <ide_reasoning>three';
    expect(findBlocks(text).map((b) => [b.body, b.terminated])).toEqual([
      ['one', true],
      ['two', true],
      ['three', false],
    ]);
    expect(findBlocks(text)[0].text).toBe('<ide_reasoning>one</ide_reasoning>');
  });

  it('treats a second opening tag inside a block as part of its body', () => {
    const [block] = findBlocks('<ide_reasoning>x <ide_reasoning> y</ide_reasoning> z');
    expect(block.body).toBe('x <ide_reasoning> y');
  });

  it('finds nothing in plain text or with only a closing tag', () => {
    expect(findBlocks('plain answer')).toEqual([]);
    expect(findBlocks('stray </ide_reasoning> tag')).toEqual([]);
  });
});

describe('stripReasoning', () => {
  it.each([
    ['no block at all', '  just text \n', 'just text'],
    ['a leading block', '<ide_reasoning>\n- a\n</ide_reasoning>\n\nI will read the file.', 'I will read the file.'],
    ['a block between paragraphs', 'Before.\n<ide_reasoning>x</ide_reasoning>\nAfter.', 'Before.\n\nAfter.'],
    ['two blocks', '<ide_reasoning>a</ide_reasoning>middle<ide_reasoning>b</ide_reasoning>end', 'middle\n\nend'],
    ['an unterminated block, to the end', 'Visible.\n<ide_reasoning>\n- never closed\n- more', 'Visible.'],
    ['a stray closing tag', 'text </ide_reasoning> more', 'text  more'],
    ['tags in any case and spacing', '< IDE_Reasoning >x</IDE_REASONING>ok', 'ok'],
    ['only a block', '<ide_reasoning>x</ide_reasoning>', ''],
  ])('removes %s', (_name, text, expected) => {
    expect(stripReasoning(text)).toBe(expected);
    expect(containsReasoning(stripReasoning(text))).toBe(false);
  });

  it('keeps the visible text byte for byte inside each remaining paragraph', () => {
    const code = 'Here:\n\n```ts\nconst a = 1;\n\n\nconst b = 2;\n```';
    expect(stripReasoning(`<ide_reasoning>- x</ide_reasoning>\n${code}`)).toBe(code);
  });
});

describe('containsReasoning', () => {
  it.each([
    ['<ide_reasoning>x</ide_reasoning>', true],
    ['unterminated <ide_reasoning> x', true],
    ['stray </ide_reasoning>', true],
    ['< Ide_Reasoning >', true],
    ['the ide_reasoning format', false],
    ['plain', false],
  ])('%p → %p', (text, expected) => {
    expect(containsReasoning(text)).toBe(expected);
  });
});
