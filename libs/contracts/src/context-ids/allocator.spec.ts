import { parseContextId } from './context-id';
import { createContextIdAllocator } from './allocator';
import { SequenceState, sequencesFrom } from './sequence';

const RUNS = ['wf-a', 'wf-b'];
const AGENTS = ['main', 'specialist', 'qa-reviewer'];
const timestamp = (i: number) => new Date(Date.UTC(2026, 0, 19, 10, 30) + i).toISOString();
const pause = (i: number) =>
  i % 3 === 0
    ? new Promise((resolve) => setImmediate(resolve))
    : i % 3 === 1
      ? Promise.resolve()
      : new Promise((resolve) => setTimeout(resolve, 0));

/** Numbers per (run, agent type), in the order they were handed out. */
function sequencesByKey(ids: readonly string[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const { workflowRunId, agentType, sequence } of ids.map(parseContextId)) {
    byKey.set(`${workflowRunId}/${agentType}`, [...(byKey.get(`${workflowRunId}/${agentType}`) ?? []), sequence]);
  }
  return byKey;
}

describe('ContextIdAllocator', () => {
  it('gives 1..N with no gap or repeat per run and agent type under 1,000 concurrent allocations', async () => {
    const persisted: SequenceState[] = [];
    // The persist step yields to the event loop in three different ways, so unserialised allocations would interleave.
    const allocator = createContextIdAllocator({
      persist: async (state, _id) => (await pause(persisted.length), void persisted.push(state)),
    });
    const requests = Array.from({ length: 1_000 }, (_, i) => ({
      workflowRunId: RUNS[i % 2],
      agentType: AGENTS[(i * 7) % 3],
      timestamp: timestamp(i),
    }));

    const ids = await Promise.all(requests.map((r) => allocator.allocate(r)));

    expect(new Set(ids).size).toBe(1_000);
    const byKey = sequencesByKey(ids);
    expect(byKey.size).toBe(6);
    for (const [key, sequences] of byKey) {
      expect({ key, sequences: [...sequences].sort((a, b) => a - b) }).toEqual({
        key,
        sequences: Array.from({ length: sequences.length }, (_, i) => i + 1),
      });
      expect({ key, sequences }).toEqual({ key, sequences: [...sequences].sort((a, b) => a - b) });
    }
    expect(ids.map((id, i) => parseContextId(id).timestamp)).toEqual(requests.map((r) => r.timestamp));
    expect(persisted).toHaveLength(1_000);
    expect(allocator.state()).toEqual(sequencesFrom(ids));
  });

  it('leaves no gap when persisting fails: the next caller gets the same number', async () => {
    let calls = 0;
    const allocator = createContextIdAllocator({
      persist: async () => {
        if (++calls === 1) throw new Error('disk full');
      },
    });
    const request = { workflowRunId: 'wf-1', agentType: 'main', timestamp: '2026-01-19T10:30:00Z' };
    const first = allocator.allocate(request);
    const second = allocator.allocate(request);
    await expect(first).rejects.toThrow('disk full');
    await expect(second).resolves.toBe('wf-1/main/001/2026-01-19T10:30:00Z');
    await expect(allocator.allocate(request)).resolves.toBe('wf-1/main/002/2026-01-19T10:30:00Z');
  });

  it('resumes from a rebuilt state', async () => {
    const allocator = createContextIdAllocator({ initial: sequencesFrom(['wf-1/main/041/2026-01-19T10:00:00Z']) });
    await expect(allocator.allocate({ workflowRunId: 'wf-1', agentType: 'main', timestamp: '2026-01-19T11:00:00Z' })).resolves.toBe(
      'wf-1/main/042/2026-01-19T11:00:00Z',
    );
  });

  it('rejects a bad request without using a number', async () => {
    const allocator = createContextIdAllocator();
    await expect(allocator.allocate({ workflowRunId: 'wf/1', agentType: 'main', timestamp: '2026-01-19T10:30:00Z' })).rejects.toMatchObject(
      { code: 'VALIDATION' },
    );
    await expect(allocator.allocate({ workflowRunId: 'wf-1', agentType: 'main', timestamp: 'yesterday' })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(allocator.allocate({ workflowRunId: 'wf-1', agentType: 'main', timestamp: '2026-01-19T10:30:00Z' })).resolves.toBe(
      'wf-1/main/001/2026-01-19T10:30:00Z',
    );
  });
});
