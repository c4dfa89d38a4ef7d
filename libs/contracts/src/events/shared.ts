import { z } from 'zod';
import { Id, Stage, ToolName } from '../common';
import { Instruction } from '../instructions';
import { RunDigest } from '../history';
import { FileChange } from '../tools';

/** Schemas that more than one stream family uses. */
export const Sha256 = z.string().regex(/^[a-f0-9]{64}$/);

export const ToolCall = z.object({ id: Id, name: z.string().min(1), arguments: z.string() });
export type ToolCall = z.infer<typeof ToolCall>;

/** On `run-*` (every message of the run) and on `conversation-*` (each finished turn). */
export const MessageAppended = z.object({
  messageId: Id,
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  content: z.string(),
  instructions: z.array(Instruction).default([]),
  intermediate: z.boolean().default(false),
  /** Why the message exists: what the user typed, what the model said, a tool result, or a correction the run added. */
  kind: z.enum(['user_input', 'assistant', 'tool_result', 'correction', 'delegation']).default('assistant'),
  stage: Stage.optional(),
  toolCalls: z.array(ToolCall).optional(),
  toolCallId: z.string().optional(),
  /**
   * A tool result that does not repeat its output: `content` is empty and stands for the `output` of the
   * `ToolCallCompleted` with this call id, just before it on the same stream (docs/decisions/0049).
   */
  outputOf: Id.optional(),
  /**
   * On a turn's answer (`conversation-*`) only: what the run that answered did (its decisions, open issues
   * and tool outputs, docs/decisions/0053). Absent on turns written before it; later runs see it as a message.
   */
  digest: RunDigest.optional(),
});

/** What a finished tool call produced: the run keeps it as `ToolCallCompleted`, the tool service as `ToolExecutionFinished`. */
export const ToolCallOutcome = z.object({
  callId: Id,
  tool: ToolName,
  ok: z.boolean(),
  output: z.string(),
  truncated: z.boolean(),
  durationMs: z.number().min(0),
  /** The files a successful write changed (absent for reads, commands, and calls recorded before it). */
  changes: z.array(FileChange).optional(),
});
