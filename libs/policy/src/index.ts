/** The pure stage policy: which tools, prompts and reasoning rule each stage gets, and the invariants no policy may break. */
export { decideStagePolicy } from './decide';
export { assertPolicyInvariants, isReasoningPrompt, policyViolations } from './invariants';
export { TOOL_CLASSES, memoryToolOf, toolClassOf, toolsOfClasses } from './tool-classes';
export { TICKET_AGENT_TYPE, writesProject } from './stage-rules';
