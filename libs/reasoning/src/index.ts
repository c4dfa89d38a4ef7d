/** The model's reasoning blocks: parsing `<ide_reasoning>`, the outcome they state, and stripping them from what is shown or kept. */
export { parseReasoning } from './parse-reasoning';
export type { ParsedReasoning, ReasoningFormat, ReasoningProblem } from './parse-reasoning';
export { containsReasoning, findBlocks, stripReasoning } from './block';
export type { ReasoningBlock } from './block';
export { renderOutcome } from './render-outcome';
export { MACRO_SECTIONS } from './macro';
export { deliveryStatement, deliveryStatements, parseDeliveryState } from './delivery';
export { MAX_BULLETS, MIN_BULLETS } from './micro';
