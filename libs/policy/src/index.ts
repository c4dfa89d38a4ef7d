export { decideStagePolicy } from './decide';
export { assertPolicyInvariants, isReasoningPrompt, policyViolations } from './invariants';
export { TOOL_CLASSES, memoryToolOf, toolClassOf, toolsOfClasses } from './tool-classes';
