import { canonicalJson } from '@stagecraft/contracts';
import type { IndexedFile, RecordedEvent } from '@stagecraft/contracts';
import { codebaseIndexModel } from './codebase-index';

const file = (path: string, name: string): IndexedFile => ({
  path,
  language: 'typescript',
  size: 10,
  hash: 'a'.repeat(64),
  symbols: [{ name, kind: 'function', startLine: 1, endLine: 2 }],
  entryPoints: [],
});

let position = 0n;
const updated = (streamId: string, files: IndexedFile[], removed: string[] = []): RecordedEvent => ({
  id: `e${position + 1n}`,
  streamId,
  revision: 0n,
  position: ++position,
  type: 'IndexUpdated',
  data: { root: '/p', files, removed },
  metadata: { occurredAt: '2026-01-01T00:00:00.000Z' },
  recordedAt: '2026-01-01T00:00:00.000Z',
});

const fold = (events: RecordedEvent[]) => events.reduce(codebaseIndexModel.evolve, codebaseIndexModel.initialState());

describe('codebase-index read model', () => {
  const events = [
    updated('index-p1', [file('a.ts', 'alpha'), file('b.ts', 'beta')]),
    updated('index-p2', [file('c.ts', 'gamma')]),
    updated('index-p1', [file('a.ts', 'alpha2')], ['b.ts']),
  ];

  it('keeps each project’s latest file entries and drops removed files', () => {
    const view = fold(events);
    expect(Object.keys(view.projects).sort()).toEqual(['index-p1', 'index-p2']);
    expect(view.projects['index-p1'].files).toEqual({ 'a.ts': file('a.ts', 'alpha2') });
    expect(view.projects['index-p1'].updates).toBe(2);
  });

  it('is rebuilt byte for byte by a second fold of the same events', () => {
    expect(canonicalJson(fold(events))).toBe(canonicalJson(fold(events)));
  });

  it('ignores the event on a stream that is not an index stream', () => {
    expect(fold([updated('memory-x', [file('a.ts', 'alpha')])])).toEqual({ projects: {} });
  });
});
