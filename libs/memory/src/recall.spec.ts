import { Memory } from '@stagecraft/contracts';
import { recallMemories } from './recall';

const memory = (memoryId: string, content: string, tier: Memory['tier'] = 'project', tags: string[] = []): Memory => ({
  memoryId,
  scope: 's',
  tier,
  content,
  tags,
});

describe('recallMemories', () => {
  const memories = [
    memory('m1', 'Build with npm run build'),
    memory('m2', 'Tests run with npm test', 'project', ['jest']),
    memory('m3', 'We chose SQLite for the embedded store', 'architecture'),
  ];

  it('ranks by the share of query terms found, ties in retention order', () => {
    expect(recallMemories(memories, 'npm test', { limit: 5 }).map((m) => [m.memoryId, m.score])).toEqual([
      ['m2', 1],
      ['m1', 0.5],
    ]);
  });

  it('matches tags, filters by tier and honours the limit', () => {
    expect(recallMemories(memories, 'jest', { limit: 5 }).map((m) => m.memoryId)).toEqual(['m2']);
    expect(recallMemories(memories, 'store npm', { limit: 5, tier: 'architecture' }).map((m) => m.memoryId)).toEqual(['m3']);
    expect(recallMemories(memories, 'npm', { limit: 1 })).toHaveLength(1);
  });

  it('returns nothing for a query without terms', () => {
    expect(recallMemories(memories, '  ?! ', { limit: 5 })).toEqual([]);
  });
});
