import { PolicyDecideRequest, Stage, StagePolicy } from '@stagecraft/contracts';
import { assertPolicyInvariants } from './invariants';
import { promptsFor, runPromptCount } from './prompt-ids';
import { memoryFor, reasoningFor, toolClassesFor } from './stage-rules';
import { memoryToolOf, toolsOfClasses } from './tool-classes';

/**
 * The single decision of what one stage may do. Pure and deterministic: the same request always gives
 * an equal policy, built from fresh arrays so no caller can mutate another caller's decision.
 *
 * A delegated specialist (depth > 0) works under exactly the stage rules of the agent that delegated:
 * same tools, tool loop, memory and reasoning rule. The one difference is an extra prompt,
 * `base/delegation_context`, after the stage prompts, which frames the work as a delegated task to hand back.
 */
export function decideStagePolicy(request: PolicyDecideRequest): StagePolicy {
  const { userMode, reasoningEnabled, stage, delegation } = request;
  const memory = memoryFor(userMode, stage);
  const tools = stageTools(request, stage);
  const reasoning = reasoningFor(userMode, stage, reasoningEnabled);
  const policy: StagePolicy = {
    userMode,
    reasoningEnabled,
    stage,
    delegation: { depth: delegation.depth, chain: [...delegation.chain] },
    tools,
    prompts: promptsFor(userMode, stage, reasoning.rule, delegation.depth > 0),
    reasoning,
    toolLoop: tools.length > 0,
    memory,
    // The reviewer is asked on its own: it offers exactly what it may call.
    offered: stage === 'qa_review' ? [...tools] : stageTools(request, 'act'),
    runPrompts: runPromptCount(userMode, stage),
  };
  assertPolicyInvariants(request, policy);
  return policy;
}

/** Memory operations are offered as tools after the class-granted ones, exactly where the stage grants them. */
const stageTools = ({ userMode, workflowAgentType }: PolicyDecideRequest, stage: Stage) => [
  ...toolsOfClasses(toolClassesFor(userMode, stage, workflowAgentType)),
  ...memoryFor(userMode, stage).map(memoryToolOf),
];
