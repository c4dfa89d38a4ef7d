import { PromptContributorDescriptor } from '@stagecraft/contracts';
import { loadPromptDirectory } from '@stagecraft/prompts';
import { DEFAULT_PROMPTS_DIR } from './index';
import { serviceContributors } from './contributors';

describe('the prompt-assembly service’s contributors', () => {
  const registry = serviceContributors(loadPromptDirectory(DEFAULT_PROMPTS_DIR));

  it('each match the published contributor descriptor', () => {
    for (const { name, agentTypes, priority } of registry.contributors) {
      const descriptor = { name, agentTypes: agentTypes === 'all' ? agentTypes : [...agentTypes], priority };
      expect(PromptContributorDescriptor.safeParse(descriptor).error?.issues ?? []).toEqual([]);
    }
  });

  it('put the workflow role before the upstream context and the previous attempt', () => {
    expect(registry.contributors.map((c) => c.name)).toEqual(
      expect.arrayContaining(['delegation-brief', 'workflow-role', 'upstream-context', 'previous-attempt']),
    );
    const order = registry.contributors.map((c) => c.name);
    expect(order.indexOf('workflow-role')).toBeLessThan(order.indexOf('upstream-context'));
    expect(order.indexOf('upstream-context')).toBeLessThan(order.indexOf('previous-attempt'));
  });
});
