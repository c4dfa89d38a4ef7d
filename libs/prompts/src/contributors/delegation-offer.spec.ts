import { join } from 'node:path';
import { Stage, UserMode } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { assemblePrompt } from '../assemble';
import { loadPromptDirectory } from '../load-prompts';
import { findPromptViolations } from '../prompt-guard';
import { defaultContributors } from './defaults';
import { delegationOfferContributor } from './delegation-offer';

const chainOf = (depth: number) => ['reviewer', 'analyst', 'tester'].slice(0, depth);
const policy = (stage: Stage, depth = 0, userMode: UserMode = 'agent') =>
  decideStagePolicy({ userMode, reasoningEnabled: false, stage, delegation: { depth, chain: chainOf(depth) } });
const offer = (stage: Stage, depth: number, maxDelegationDepth: number | undefined, userMode: UserMode = 'agent') => {
  const p = policy(stage, depth, userMode);
  if (delegationOfferContributor.appliesTo?.(p) === false) return null;
  return delegationOfferContributor.contribute({ agentType: 'main', policy: p, variables: {}, instructions: [], maxDelegationDepth });
};

describe('delegation offer contributor', () => {
  it('tells an acting agent how to delegate, hand back and what intermediate means, below the depth limit', () => {
    for (const stage of ['act', 'tool_followup'] as const) {
      const text = offer(stage, 0, 3) ?? '';
      expect(text).toContain('<delegate-reasoning agent="');
      expect(text).toContain('</delegate-reasoning>');
      expect(text).toContain('<return-control>');
      expect(text).toContain('marked intermediate');
      expect(text).toContain('delegation depth 0 of at most 3');
    }
  });

  it('offers nothing at the depth limit, without a limit, with a limit of 0, in chat mode or outside the acting stages', () => {
    expect(offer('act', 3, 3)).toBeNull();
    expect(offer('tool_followup', 1, 1)).toBeNull();
    expect(offer('act', 0, 0)).toBeNull();
    expect(offer('act', 0, undefined)).toBeNull();
    expect(offer('act', 0, 3, 'chat')).toBeNull();
    for (const stage of ['warmup', 'delivery_check', 'qa_review'] as const) expect(offer(stage, 0, 3)).toBeNull();
  });

  it('names the agents already in the chain, which a delegation to would be refused as a loop', () => {
    expect(offer('act', 2, 3)).toContain('(`main`, `reviewer`, `analyst`)');
  });

  it('passes the prompt guard', () => {
    expect(findPromptViolations(offer('act', 1, 3) ?? '')).toEqual([]);
  });

  it('sits in the stage part of a split request: the shared head is the same whether or not delegation is offered', () => {
    const repo = loadPromptDirectory(join(__dirname, '..', '..', '..', '..', 'prompts'));
    const assemble = (maxDelegationDepth: number) =>
      assemblePrompt(
        repo,
        { policy: policy('act'), variables: { project_root: '/p', user_input: 'Add a flag' }, instructions: [], agentType: 'main', layout: 'split', maxDelegationDepth },
        defaultContributors(),
      );
    const offered = assemble(3);
    const withheld = assemble(0);
    expect(offered.system).toBe(withheld.system);
    expect(offered.system).not.toContain('delegate-reasoning');
    expect(offered.stage).toContain('## Delegating to a specialist');
    expect(withheld.stage).not.toContain('delegate-reasoning');
    expect(offered.promptIds).toContain('contributor:delegation-offer');
    expect(withheld.promptIds).not.toContain('contributor:delegation-offer');
  });
});
