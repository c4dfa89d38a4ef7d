import { ChatMessage } from './model';
import type { RunDigest } from './history';
import { ReasoningOutcome } from './reasoning';

/** One event a summary drew on. */
export interface EventRef {
  stream: string;
  revision: number;
}

/** A message of the history with where it is stored and why it exists. */
export interface SourcedMessage extends EventRef {
  message: ChatMessage;
  kind?: 'user_input' | 'assistant' | 'tool_result' | 'correction' | 'delegation';
  /** A message that shows an earlier run's digest: a summary files these items, with their provenance, rather than the text. */
  digest?: RunDigest;
}

/** A reasoning outcome the run recorded, with where. */
export interface SourcedOutcome extends EventRef {
  outcome: ReasoningOutcome;
}
