import { defaultContributors } from './defaults';
import { recalledMemoriesSection } from './recalled-memories';

describe('the recalled-memories contributor', () => {
  it('lists each recalled memory on one line with its tier, id and source run', () => {
    const section = recalledMemoriesSection([
      { memoryId: 'run-outcome-1', tier: 'run_outcome', content: 'Request: fix the build\nAnswer: fixed', runId: 'run-9' },
      { memoryId: 'm-2', tier: 'architecture', content: 'SQLite is the embedded store' },
    ]);
    expect(section?.split('\n\n')[0]).toBe("## Recalled from this project's memory");
    expect(section?.split('\n').slice(-2)).toEqual([
      '- (run_outcome; memory run-outcome-1, from run run-9) Request: fix the build Answer: fixed',
      '- (architecture; memory m-2) SQLite is the embedded store',
    ]);
  });

  it('contributes nothing without memories, and is registered by default', () => {
    expect(recalledMemoriesSection([])).toBeNull();
    expect(defaultContributors().contributors.map((c) => c.name)).toContain('recalled-memories');
  });
});
