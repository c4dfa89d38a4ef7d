import { decideStagePolicy } from '@stagecraft/policy';
import { PromptContributor } from './contributor';
import { createContributorRegistry } from './registry';

const policy = decideStagePolicy({ userMode: 'agent', reasoningEnabled: false, stage: 'act', delegation: { depth: 0, chain: [] } });

const contributor = (name: string, priority: number, extra: Partial<PromptContributor> = {}): PromptContributor => ({
  name,
  priority,
  agentTypes: 'all',
  contribute: () => name,
  ...extra,
});

describe('contributor registry', () => {
  it('orders by priority, then by name', () => {
    const registry = createContributorRegistry([contributor('zeta', 5), contributor('beta', 20), contributor('alpha', 20), contributor('Alpha', 20), contributor('first', -1)]);
    expect(registry.contributors.map((c) => c.name)).toEqual(['first', 'zeta', 'Alpha', 'alpha', 'beta']);
  });

  it('gives the same order whatever order contributors were registered in', () => {
    const list = [contributor('c', 1), contributor('a', 1), contributor('b', 0)];
    const names = (l: PromptContributor[]) => createContributorRegistry(l).contributors.map((c) => c.name);
    expect(names(list)).toEqual(names([...list].reverse()));
  });

  it('selects by agent type and by policy', () => {
    const registry = createContributorRegistry([
      contributor('for-all', 1),
      contributor('for-main', 2, { agentTypes: ['main'] }),
      contributor('for-reviewer', 3, { agentTypes: ['qa-reviewer'] }),
      contributor('only-with-delegation', 4, { appliesTo: (p) => p.delegation.depth > 0 }),
      contributor('only-in-act', 5, { appliesTo: (p) => p.stage === 'act' }),
    ]);
    expect(registry.select('main', policy).map((c) => c.name)).toEqual(['for-all', 'for-main', 'only-in-act']);
    expect(registry.select('qa-reviewer', policy).map((c) => c.name)).toEqual(['for-all', 'for-reviewer', 'only-in-act']);
  });

  it.each([
    ['a duplicate name', [contributor('x', 1), contributor('x', 2)], 'registered twice'],
    ['a blank name', [contributor(' ', 1)], 'name is blank'],
    ['a priority that is not a number', [contributor('x', Number.NaN)], 'priority'],
    ['no agent types', [contributor('x', 1, { agentTypes: [] })], 'agentTypes is empty'],
  ])('refuses %s', (_label, list, message) => {
    expect(() => createContributorRegistry(list)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining(message) }));
  });
});
