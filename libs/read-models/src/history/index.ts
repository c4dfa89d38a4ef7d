export { emptyHistory, evolveHistory, historyModel, sourcedMessages } from './history';
export type { ConversationHistory, HistoryEntry, HistoryView } from './history';
