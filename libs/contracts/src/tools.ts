import { z } from 'zod';
import { Id, NonBlank, RunId, Stage, ToolName, UserMode } from './common';
import { EditorBridge } from './editor';
import { boundedJsonObject } from './json-structure';
import { DelegationState, NO_DELEGATION, PolicyDecideRequest } from './policy';

export const ToolCallId = Id;

/**
 * No tool takes arguments nested more than two levels (`run_command`'s `args` list), yet the field is
 * free-form until the tool's own schema reads it, and whatever passes here is recorded. These bounds
 * keep a deep or huge value out of the log (a 10,000-deep one once overflowed the stack).
 */
export const TOOL_ARGUMENT_LIMITS = { maxDepth: 16, maxValues: 10_000, maxItems: 5_000 } as const;
export const ToolArguments = boundedJsonObject(TOOL_ARGUMENT_LIMITS);

/**
 * A model's tool-call arguments (a JSON text) as an object within the bounds `tool.execute` accepts;
 * null when they are not JSON, not an object, or too big or deep to be recorded.
 */
export function parseToolArguments(raw: string): Record<string, unknown> | null {
  try {
    const parsed = ToolArguments.safeParse(JSON.parse(raw || '{}'));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const ToolExecuteRequest = z.object({
  callId: ToolCallId,
  runId: RunId,
  tool: ToolName,
  arguments: ToolArguments,
  stage: Stage,
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  delegation: DelegationState.default(NO_DELEGATION),
  projectRoot: NonBlank,
  /** The workflow agent type whose run asks (docs/decisions/0036): the policy decided here again refuses writes to any but a ticket agent. */
  workflowAgentType: PolicyDecideRequest.shape.workflowAgentType,
  /** The editor whose buffers a read sees and through which a write goes (docs/decisions/0061); absent: the disk. */
  editor: EditorBridge.optional(),
});
export type ToolExecuteRequest = z.infer<typeof ToolExecuteRequest>;

/** The most of one file's unified diff a change keeps; a larger diff is cut at a line and says so (`diffTruncated`). */
export const FILE_CHANGE_DIFF_MAX_CHARS = 64_000;

/**
 * What a write did to one file, as a reader shows it: the path relative to the project root, how, the lines
 * added and removed, and the unified diff (`--- a/path` / `+++ b/path`, three lines of context).
 */
export const FileChange = z.object({
  path: z.string().min(1),
  kind: z.enum(['created', 'modified', 'deleted']),
  added: z.number().int().min(0),
  removed: z.number().int().min(0),
  diff: z.string().max(FILE_CHANGE_DIFF_MAX_CHARS + 200),
  diffTruncated: z.boolean().optional(),
});
export type FileChange = z.infer<typeof FileChange>;

export const ToolResult = z.object({
  callId: ToolCallId,
  tool: ToolName,
  ok: z.boolean(),
  output: z.string(),
  truncated: z.boolean(),
  durationMs: z.number().min(0),
  /** True when the call id had already run and the recorded result was returned instead. */
  replayed: z.boolean(),
  /** The call was cut off (its service stopped, or its run was cancelled): its effect is unknown, and it is not run again. */
  interrupted: z.boolean().optional(),
  /** The files a successful write changed, in the order written (absent for reads and commands). */
  changes: z.array(FileChange).optional(),
});
export type ToolResult = z.infer<typeof ToolResult>;
export const ToolExecuteReply = ToolResult;
export type ToolExecuteReply = ToolResult;

/** `index.map`: a short map of a project from its codebase index (docs/decisions/0022). */
export const IndexMapRequest = z.object({
  runId: RunId.optional(),
  projectRoot: NonBlank,
});
export type IndexMapRequest = z.infer<typeof IndexMapRequest>;

export const IndexMapReply = z.object({
  /** Top-level layout and entry points, a few lines of markdown; empty for a project without files. */
  map: z.string(),
  files: z.number().int().min(0),
});
export type IndexMapReply = z.infer<typeof IndexMapReply>;

export const ToolProgress = z.object({
  callId: ToolCallId,
  sequence: z.number().int().min(0),
  message: z.string(),
});
export type ToolProgress = z.infer<typeof ToolProgress>;

/** What a model reads when a tool call did not run: the code, what went wrong, and what to do instead. */
export interface ToolError {
  code: string;
  problem: string;
  retry: string;
}

/** The one text form of a tool error, for every tool result a model reads. */
export const toolErrorText = ({ code, problem, retry }: ToolError): string => `tool_error: ${code}\nproblem: ${problem}\nretry: ${retry}`;
