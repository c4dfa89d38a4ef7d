import { PolicyDecideRequest, StagePolicy, StagecraftError } from '@stagecraft/contracts';
import { writesProject } from './stage-rules';
import { memoryToolOf, toolClassOf } from './tool-classes';

/**
 * The seed's invariants as checks (seed 002 §2, §9.2). Every policy must pass them, and any service
 * holding a policy can re-check one it received: a failure means the system itself is wrong.
 */
export function policyViolations(request: PolicyDecideRequest, policy: StagePolicy): string[] {
  const violations: string[] = [];
  if (policy.userMode !== request.userMode) violations.push(`mode changed from ${request.userMode} to ${policy.userMode}`);
  if (policy.reasoningEnabled !== request.reasoningEnabled) violations.push('reasoning switch changed');
  if (policy.stage !== request.stage) violations.push(`stage changed from ${request.stage} to ${policy.stage}`);
  if (JSON.stringify(policy.delegation) !== JSON.stringify(request.delegation)) violations.push('delegation changed');
  const classes = policy.tools.map(toolClassOf);
  if (policy.stage === 'delivery_check' && policy.tools.length > 0) violations.push('delivery_check has tools');
  if (policy.stage === 'qa_review' && classes.some((c) => c !== 'read_only' && c !== 'memory'))
    violations.push('qa_review has a tool that is not read-only');
  if (policy.userMode === 'chat' && classes.some((c) => c !== 'read_only')) violations.push('chat has a write or execute tool');
  if (!writesProject(request.workflowAgentType) && classes.some((c) => c === 'write' || c === 'execute'))
    violations.push(`a ${request.workflowAgentType} works in the project root and has a write or execute tool`);
  const memoryTools = policy.tools.filter((t) => toolClassOf(t) === 'memory');
  const granted: readonly string[] = (policy.memory ?? []).map(memoryToolOf);
  if (memoryTools.length !== granted.length || memoryTools.some((t) => !granted.includes(t)))
    violations.push('the memory tools offered differ from the memory operations granted');
  if (policy.userMode === 'chat' && policy.toolLoop) violations.push('chat has a tool loop');
  if (policy.tools.length > 0 && !policy.toolLoop) violations.push('tools are offered but never executed');
  if ((policy.memory ?? []).length > 0 && !policy.toolLoop) violations.push('memory is offered but never executed');
  if (policy.stage === 'qa_review' && (policy.memory ?? []).some((op) => op !== 'recall')) violations.push('qa_review may write memory');
  violations.push(...reasoningViolations(policy), ...layoutViolations(policy));
  return violations;
}

/** What a request offers and what its system message holds: the same in every stage, never more than the stage's rules allow to run. */
function layoutViolations(policy: StagePolicy): string[] {
  const violations: string[] = [];
  const offered = policy.offered ?? policy.tools;
  if (policy.tools.some((t) => !offered.includes(t))) violations.push('a tool the stage may call is not offered');
  if (policy.stage === 'qa_review' && offered.some((t) => !policy.tools.includes(t)))
    violations.push('qa_review offers a tool it may not call');
  if (policy.userMode === 'chat' && offered.length > 0) violations.push('chat offers tools');
  const runPrompts = policy.prompts.slice(0, policy.runPrompts ?? 0);
  if ((policy.runPrompts ?? 0) > policy.prompts.length) violations.push('more run prompts than prompts');
  if (runPrompts.some(isReasoningPrompt)) violations.push('the reasoning prompt is among the prompts every stage shares');
  return violations;
}

function reasoningViolations(policy: StagePolicy): string[] {
  const { rule, required } = policy.reasoning;
  const reasoningPrompts = policy.prompts.filter(isReasoningPrompt);
  if (!policy.reasoningEnabled) {
    return rule === 'none' && !required && reasoningPrompts.length === 0 ? [] : ['reasoning is asked for while the user turned it off'];
  }
  if (rule === 'none' || !required) return ['reasoning is on but not required'];
  if (reasoningPrompts.length !== 1) return ['reasoning is on but the prompt set has no single reasoning prompt'];
  if (policy.prompts[policy.prompts.length - 1] !== reasoningPrompts[0]) return ['the reasoning prompt is not last'];
  return [];
}

export function isReasoningPrompt(promptId: string): boolean {
  return /(^|\/)(reasoning_(macro|micro)|review_micro_reasoning)$/.test(promptId);
}

export function assertPolicyInvariants(request: PolicyDecideRequest, policy: StagePolicy): void {
  const violations = policyViolations(request, policy);
  if (violations.length > 0) {
    throw new StagecraftError(
      'INVARIANT_VIOLATION',
      `stage policy breaks ${violations.length} invariant(s): ${violations.join('; ')}`,
      violations.map((message) => ({ path: ['policy'], message })),
    );
  }
}
