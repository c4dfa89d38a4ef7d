export { reasoningOf, reasoningOfConversation, reasoningOfRun, reasoningOutcomeModel } from './reasoning-outcome';
export type { ConversationReasoning, ReasoningAnswer, ReasoningOutcomeView, RunReasoning } from './reasoning-outcome';
