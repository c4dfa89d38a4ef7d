import { Instruction } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { delegationBriefContributor } from './delegation-brief';

const policy = (depth: number) =>
  decideStagePolicy({ userMode: 'agent', reasoningEnabled: false, stage: 'act', delegation: { depth, chain: depth > 0 ? ['analyst'] : [] } });
const delegate = (agentPrompt: string): Instruction => ({ kind: 'DelegateReasoning', agentType: 'analyst', agentPrompt, markIntermediate: true });

describe('delegation brief contributor', () => {
  it('applies only while a delegation is active', () => {
    expect(delegationBriefContributor.appliesTo?.(policy(0))).toBe(false);
    expect(delegationBriefContributor.appliesTo?.(policy(2))).toBe(true);
  });

  it('gives the specialist the latest brief in full', () => {
    const instructions = [delegate('Old brief.'), { kind: 'IntermediateReasoning' } as const, delegate('  Analyse module coupling in src/.  ')];
    expect(delegationBriefContributor.contribute({ agentType: 'analyst', policy: policy(1), variables: {}, instructions })).toBe(
      '## Specialist brief\n\nAnalyse module coupling in src/.',
    );
  });

  it('contributes nothing without a delegation instruction', () => {
    expect(delegationBriefContributor.contribute({ agentType: 'analyst', policy: policy(1), variables: {}, instructions: [{ kind: 'ReturnControl' }] })).toBeNull();
  });
});
