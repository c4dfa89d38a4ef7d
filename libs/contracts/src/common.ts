import { z } from 'zod';

export const UserMode = z.enum(['chat', 'agent']);
export type UserMode = z.infer<typeof UserMode>;

export const Stage = z.enum(['warmup', 'act', 'tool_followup', 'delivery_check', 'qa_review']);
export type Stage = z.infer<typeof Stage>;

export const DeliveryState = z.enum(['DONE', 'NEEDS_WORK']);
export type DeliveryState = z.infer<typeof DeliveryState>;

/** Read-only tools, the codebase index's (`find_symbol`, `list_entry_points`, `search_index`) among them. */
export const ReadOnlyToolName = z.enum([
  'read_file',
  'list_dir',
  'search_code',
  'find_symbol',
  'list_entry_points',
  'search_index',
  'read_tool_output',
]);
export const WriteToolName = z.enum(['write_file', 'apply_patch']);
export const ExecuteToolName = z.enum(['run_command']);
/** Memory operations as tools: offered where the stage policy grants the operation (`memory_<operation>`). */
export const MemoryToolName = z.enum(['memory_recall', 'memory_retain', 'memory_reflect']);
export type MemoryToolName = z.infer<typeof MemoryToolName>;
export const ToolName = z.enum([
  ...ReadOnlyToolName.options,
  ...WriteToolName.options,
  ...ExecuteToolName.options,
  ...MemoryToolName.options,
]);
export type ToolName = z.infer<typeof ToolName>;

export const ToolClass = z.enum(['read_only', 'write', 'execute', 'memory']);
export type ToolClass = z.infer<typeof ToolClass>;

export const ServiceName = z.enum(['conversation', 'policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory']);
export type ServiceName = z.infer<typeof ServiceName>;
export const SERVICE_NAMES = ServiceName.options;

const idPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Ids travel in stream names and NATS subjects, so they are restricted to a safe alphabet. */
export const Id = z.string().regex(idPattern, 'ids use letters, digits, ".", "_", ":" or "-" (max 128)');
export const RunId = Id;
export const ConversationId = Id;

/** `{workflowRunId}/{agentType}/{sequence}/{timestamp}` */
/** `{workflowRunId}/{agentType}/{sequence}/{timestamp}` (seeds 001/003; see docs/decisions/0004). */
export { ContextIdString as ContextId } from './context';

export const IsoTimestamp = z.iso.datetime({ offset: true });
export const NonBlank = z.string().trim().min(1);

/** The bounds a run keeps (`RunStarted.limits`) that can run out before the work is done. */
export const RunLimitName = z.enum(['maxToolIterations', 'maxDeliveryChecks']);
export type RunLimitName = z.infer<typeof RunLimitName>;

/** Who cancelled a run: a person at the CLI (`user`: Ctrl-C on chat; `cli`: `runs cancel`), an MCP client, or a workflow. */
export const CancelledBy = z.enum(['user', 'cli', 'mcp', 'workflow', 'operator']);
export type CancelledBy = z.infer<typeof CancelledBy>;
