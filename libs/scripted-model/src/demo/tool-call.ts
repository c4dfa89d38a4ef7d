import { createHash } from 'node:crypto';
import { ScriptedToolCall } from '../script';
import { Conversation } from './conversation';

/**
 * Call ids follow from the run and the messages so far: a repeated request (a resumed run) gets the same
 * ids, so the tool service answers from its record, while another run never reuses one.
 */
export function toolCall(c: Conversation, position: number, name: string, args: Record<string, unknown>): ScriptedToolCall {
  const id = `call_${createHash('sha256').update(`${c.idSeed}:${position}`).digest('hex').slice(0, 24)}`;
  return { id, name, arguments: args };
}
