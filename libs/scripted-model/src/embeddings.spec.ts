import { embeddingInputs, embeddingVector } from './embeddings';
import { pieces } from './chat-chunks';

describe('embeddingVector', () => {
  it('is a pure function of the text and the size', () => {
    expect(embeddingVector('stagecraft', 64)).toEqual(embeddingVector('stagecraft', 64));
    expect(embeddingVector('stagecraft', 64)).not.toEqual(embeddingVector('Stagecraft', 64));
  });

  it.each([1, 16, 64, 100, 1536])('has %i unit-length float32 components', (dimensions) => {
    const vector = embeddingVector('text', dimensions);
    expect(vector).toHaveLength(dimensions);
    expect(vector.every((v) => Math.fround(v) === v && v >= -1 && v <= 1)).toBe(true);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
  });

  it('takes a string, strings, or token arrays', () => {
    expect(embeddingInputs('a')).toEqual(['a']);
    expect(embeddingInputs(['a', 'b'])).toEqual(['a', 'b']);
    expect(embeddingInputs([1, 2, 3])).toEqual(['[1,2,3]']);
    expect(embeddingInputs([[1, 2], [3]])).toEqual(['[1,2]', '[3]']);
  });
});

describe('pieces', () => {
  it.each([
    ['', 4, []],
    ['abc', 4, ['a', 'b', 'c']],
    ['abcdefgh', 4, ['ab', 'cd', 'ef', 'gh']],
    ['abcdefghi', 3, ['abc', 'def', 'ghi']],
    ['a🦊b🦊', 2, ['a🦊', 'b🦊']],
  ])('splits %p into at most %i pieces that join back', (text, count, expected) => {
    expect(pieces(text, count)).toEqual(expected);
  });
});
