import { z } from 'zod';
import { Id, IsoTimestamp, Stage, ToolName } from '../common';
import { ErrorCode } from '../errors';
import { EventUnion, eventFamily } from './family';
import { Sha256, ToolCallOutcome } from './shared';

/**
 * Digest of everything else the call id is bound to (run, project root, mode, reasoning switch,
 * delegation): a retry that differs in any of them is another call. Absent in records written
 * before calls were bound.
 */
const binding = Sha256.optional();

/** `toolcall-<callId>`: one call as the tool service ran it, written by the tool service alone. */
export const toolCallEventSchemas = {
  ToolExecutionStarted: z.object({
    callId: Id,
    tool: ToolName,
    arguments: z.record(z.string(), z.unknown()),
    stage: Stage,
    binding,
    /** When the tool service gives up on the call: past it, an unsettled call was interrupted. */
    deadline: IsoTimestamp.optional(),
  }),
  ToolExecutionFinished: ToolCallOutcome.extend({
    /** The tool service stopped during the call: its effect, if any, is unknown, and the call is not run again. */
    interrupted: z.boolean().optional(),
  }),
  ToolExecutionRefused: z.object({ callId: Id, tool: z.string(), stage: Stage, code: ErrorCode, reason: z.string(), binding }),
};

/** Stores written before the tool-call stream had its own types hold the run stream's names there. */
export const toolCallEvents = eventFamily(toolCallEventSchemas, {
  ToolCallRequested: 'ToolExecutionStarted',
  ToolCallCompleted: 'ToolExecutionFinished',
  ToolCallRejected: 'ToolExecutionRefused',
});
export type ToolCallEvent = EventUnion<typeof toolCallEventSchemas>;
