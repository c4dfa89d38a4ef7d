import { mergeCase } from './three-way';

describe('what merging one file of a ticket’s copy into the root means', () => {
  const base = 'b';
  it.each([
    ['the ticket left it as it was', { base, ours: 'u', theirs: base }, { kind: 'unchanged' }],
    ['only the ticket changed it', { base, ours: base, theirs: 't' }, { kind: 'take-theirs' }],
    ['only the ticket deleted it', { base, ours: base, theirs: null }, { kind: 'take-theirs' }],
    ['only the ticket created it', { base: null, ours: null, theirs: 't' }, { kind: 'take-theirs' }],
    ['both changed it the same way', { base, ours: 't', theirs: 't' }, { kind: 'same' }],
    ['both deleted it', { base, ours: null, theirs: null }, { kind: 'same' }],
    ['both created it identically', { base: null, ours: 't', theirs: 't' }, { kind: 'same' }],
    ['both changed it differently', { base, ours: 'u', theirs: 't' }, { kind: 'merge-lines' }],
    ['both created it differently', { base: null, ours: 'u', theirs: 't' }, { kind: 'conflict', reason: 'both-added' }],
    ['the user deleted what the ticket edited', { base, ours: null, theirs: 't' }, { kind: 'conflict', reason: 'user-deleted' }],
    ['the ticket deleted what the user edited', { base, ours: 'u', theirs: null }, { kind: 'conflict', reason: 'ticket-deleted' }],
  ] as const)('%s', (_, versions, expected) => {
    expect(mergeCase(versions)).toEqual(expected);
  });

  it('never answers take-theirs when the user changed the file since the snapshot', () => {
    const sides = [null, 'b', 'u', 't'];
    for (const b of sides)
      for (const ours of sides)
        for (const theirs of sides) {
          const decided = mergeCase({ base: b, ours, theirs });
          if (ours !== b) expect({ b, ours, theirs, kind: decided.kind }).not.toMatchObject({ kind: 'take-theirs' });
        }
  });
});
