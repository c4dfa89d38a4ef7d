import { z } from 'zod';
import { ToolContext } from './context';
import { ToolFailureError, ToolOutcome, succeeded } from './outcome';

/** What a tool call id looks like: `read_tool_output` reads no stream another shape could name. */
export const TOOL_CALL_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export const ReadToolOutputArgs = z
  .strictObject({
    callId: z.string().regex(TOOL_CALL_ID).describe('the call id a shortened tool result names'),
    startLine: z.number().int().min(1).optional().describe('first line of the output to return, 1-based'),
    endLine: z.number().int().min(1).optional().describe('last line to return, inclusive'),
  })
  .refine((a) => a.startLine === undefined || a.endLine === undefined || a.endLine >= a.startLine, {
    message: 'endLine must not be before startLine',
    path: ['endLine'],
  });
export type ReadToolOutputArgs = z.infer<typeof ReadToolOutputArgs>;

/**
 * Lines of an earlier tool call's output, as the tool service recorded it whole: what a result shown
 * as head and tail left out (docs/decisions/0049). The service hands over only its own run's calls.
 * A range is read as asked; the next request's budget shortens it again if it has to.
 */
export async function readToolOutputTool(args: ReadToolOutputArgs, context: ToolContext): Promise<ToolOutcome> {
  const output = await context.toolOutput?.(args.callId);
  if (output === undefined || output === null)
    throw new ToolFailureError({
      kind: 'NOT_FOUND',
      problem: `no recorded output of tool call ${args.callId} in this run`,
      retry: 'use the callId a shortened tool result names',
    });
  const lines = output.split('\n');
  const first = args.startLine ?? 1;
  const last = Math.min(args.endLine ?? lines.length, lines.length);
  if (first > lines.length)
    throw new ToolFailureError({
      kind: 'OUT_OF_RANGE',
      problem: `the output of ${args.callId} has ${lines.length} lines; startLine ${first} is past the end`,
      retry: `retry with startLine between 1 and ${lines.length}`,
    });
  context.progress(`read lines ${first}-${last} of the output of ${args.callId}`);
  return succeeded(lines.slice(first - 1, last).join('\n'));
}
