import { join } from 'node:path';
import { runPromptBench } from './prompt-bench';

describe('prompt bench', () => {
  it('assembles with all ten contributors over the real inventory and reports its numbers', () => {
    const lines: string[] = [];
    const result = runPromptBench((line) => lines.push(line), {
      promptDir: join(__dirname, '..', '..', '..', 'prompts'),
      iterations: 50,
      policyIterations: 2_000,
    });
    expect(result.contributorsFired).toBe(10);
    expect(result.promptCount).toBeGreaterThanOrEqual(22);
    expect(result.assembleP50).toBeGreaterThan(0);
    expect(result.assembleP99).toBeGreaterThanOrEqual(result.assembleP50);
    expect(result.policyDecisionsPerSecond).toBeGreaterThan(0);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^prompt assembly \(50-message history, 10 contributors/);
  });
});
