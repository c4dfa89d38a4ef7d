import { EventData, HistorySummary, RunDigest } from '@stagecraft/contracts';
import { renderDigest } from '@stagecraft/run';
import { SourcedMessage } from '@stagecraft/contracts';
import type { Projection, RecordedEvent } from '@stagecraft/contracts';
import { entryOf } from '../logged';

/** A message of a conversation's turns, as the history keeps it. */
export interface HistoryEntry {
  role: EventData<'MessageAppended'>['role'];
  content: string;
  kind: EventData<'MessageAppended'>['kind'];
  /** Its revision on the conversation stream. */
  revision: number;
  /**
   * Set on the entry that shows the digest of the run that answered (docs/decisions/0053): it stands
   * between the question and the answer, at the answer's revision. Turns written before it have none.
   */
  digest?: RunDigest;
}

/** A conversation's compressed history: the latest summary, and the turns after it verbatim. */
export interface ConversationHistory {
  conversationId: string;
  summary: HistorySummary | null;
  messages: HistoryEntry[];
  compactions: number;
  /** The last revision of the conversation stream folded in; -1 before any. */
  revision: number;
  /** The log position of that event, as a decimal string ("0" before any). */
  position: string;
}

export const emptyHistory = (conversationId: string): ConversationHistory => ({
  conversationId,
  summary: null,
  messages: [],
  compactions: 0,
  revision: -1,
  position: '0',
});

type HistoryEvent = Pick<RecordedEvent, 'type' | 'data' | 'revision' | 'position'>;

/** One conversation event folded into its history. Returns a new history; the one given is not changed. */
export function evolveHistory(history: ConversationHistory, event: HistoryEvent): ConversationHistory {
  const at = { revision: Number(event.revision), position: event.position.toString() };
  if (event.type === 'MessageAppended') {
    const { role, content, kind, digest } = event.data as EventData<'MessageAppended'>;
    const entry = { role, content, kind, revision: at.revision };
    const shown = digest ? [digestEntry(digest, at.revision), entry] : [entry];
    return { ...history, ...at, messages: [...history.messages, ...shown] };
  }
  if (event.type === 'HistoryCompacted') {
    const { summary, replaced } = event.data as EventData<'HistoryCompacted'>;
    return { ...history, ...at, summary, messages: history.messages.slice(replaced), compactions: history.compactions + 1 };
  }
  return history;
}

/** The digest as the model reads it: context about what the run did, given like a summary is. */
const digestEntry = (digest: RunDigest, revision: number): HistoryEntry => ({
  role: 'user',
  content: renderDigest(digest),
  kind: 'assistant',
  revision,
  digest,
});

/** The turns after the summary, as the compaction and the run's requests take them. */
export const sourcedMessages = (history: ConversationHistory, stream: string): SourcedMessage[] =>
  history.messages.map(({ role, content, kind, revision, digest }) => ({
    message: { role: role === 'system' ? 'user' : role, content },
    kind,
    stream,
    revision,
    ...(digest ? { digest } : {}),
  }));

export interface HistoryView {
  conversations: Record<string, ConversationHistory>;
}

const CONVERSATION = 'conversation-';

/**
 * Every conversation's compressed history, from the conversation streams. The fold owns its view: it
 * replaces one conversation's entry in place (copying every conversation per event would make a
 * rebuild quadratic), and never changes an entry it handed out.
 */
export const historyModel: Projection<HistoryView> = {
  name: 'memory-history',
  handles: ['MessageAppended', 'HistoryCompacted'],
  initialState: () => ({ conversations: {} }),
  evolve(view, event) {
    if (!event.streamId.startsWith(CONVERSATION)) return view;
    const id = event.streamId.slice(CONVERSATION.length);
    view.conversations[id] = evolveHistory(entryOf(view.conversations, id) ?? emptyHistory(id), event);
    return view;
  },
};
