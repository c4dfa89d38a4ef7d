import { ChatMessage } from './model';
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
}

/** A reasoning outcome the run recorded, with where. */
export interface SourcedOutcome extends EventRef {
  outcome: ReasoningOutcome;
}
