import {
  ApprovalAnswerRequest,
  NonBlank,
  RunCancelRequest,
  RunGetRequest,
  WorkflowGetRequest,
  WorkflowNextRequest,
  WorkflowStartRequest,
  validationError,
} from '@stagecraft/contracts';
import { z } from 'zod';
import { ChatArgs, chatTool } from './chat-tool';
import type { McpContext } from './context';
import { projectRootOf } from './roots';

/** One MCP tool: its arguments are checked against `input` (from the contracts) before `call` sees them. */
export interface McpTool {
  name: string;
  description: string;
  input: z.ZodType;
  /** `progress` is told what happens meanwhile, when the client asked to hear it. */
  run(context: McpContext, args: unknown, progress?: Progress): Promise<Record<string, unknown>>;
}

export type Progress = (message: string) => void;

function tool<S extends z.ZodType>(
  name: string,
  description: string,
  input: S,
  call: (context: McpContext, args: z.output<S>, progress?: Progress) => Promise<object>,
): McpTool {
  return {
    name,
    description,
    input,
    async run(context, args, progress) {
      const parsed = input.safeParse(args ?? {});
      if (!parsed.success) throw validationError(parsed.error, `arguments of ${name}`);
      return (await call(context, parsed.data, progress)) as Record<string, unknown>;
    },
  };
}

/** Who cancels is this server's client: the request always says `mcp`, whatever the arguments say. */
const CancelRunArgs = z.strictObject({ runId: RunCancelRequest.shape.runId, reason: RunCancelRequest.shape.reason });

const WorkflowStartArgs = z.object({
  goal: WorkflowStartRequest.shape.goal,
  root: NonBlank.optional().describe("the project the workflow works in; the server's --root when left out"),
  phases: WorkflowStartRequest.shape.phases,
  workflow: WorkflowStartRequest.shape.workflow,
  approve: WorkflowStartRequest.shape.approve,
  gates: WorkflowStartRequest.shape.gates,
});

export const TOOLS: readonly McpTool[] = [
  tool(
    'workflow_next',
    "The next step of a step-by-step workflow: the step, the model's guidance prompt, and whether every step is done.",
    WorkflowNextRequest,
    (context, args) => context.requester.request('workflow.next', args),
  ),
  tool(
    'chat',
    'Send a message and follow its run to the end: the answer, the delivery state and the QA report. A run that waits for an approval answers with status waiting and what it waits for.',
    ChatArgs,
    chatTool,
  ),
  tool(
    'run_status',
    "A run's view (status, stage, delivery, answer, pending approval) and its summary (times, model calls, tokens, cost) once the runs view has it.",
    RunGetRequest,
    async (context, args) => {
      const { run } = await context.requester.request('conversation.run.get', args);
      // The summary is a projection and may trail the run by a moment; the view alone still answers.
      const summary = await context.requester.request('runs.get', args).then(
        (reply) => reply.run,
        () => null,
      );
      return { run, summary };
    },
  ),
  tool(
    'cancel_run',
    'Cancel a run: a tool call in flight is stopped and recorded as interrupted, and nothing more is decided. Answers whether it was cancelled or had already ended.',
    CancelRunArgs,
    (context, args) => context.requester.request('run.cancel', { ...args, by: 'mcp' }),
  ),
  tool(
    'workflow_start',
    'Start a workflow: discovery → planning → tickets (or the listed phases), or a step-by-step workflow by id.',
    WorkflowStartArgs,
    async (context, { root, ...rest }) =>
      context.requester.request('workflow.start', { ...rest, projectRoot: await projectRootOf(context, root) }),
  ),
  tool(
    'workflow_status',
    "A workflow's view: its phases, their agents and runs, and what it waits for.",
    WorkflowGetRequest,
    (context, args) => context.requester.request('workflow.get', args),
  ),
  tool(
    'approve',
    'Answer what a run or a workflow waits for: approve or deny (a denial tells the model the reason).',
    ApprovalAnswerRequest,
    (context, args) => context.requester.request('approval.answer', args),
  ),
];

/** The JSON Schema of a tool's arguments, as a client fills them in. */
export const inputJsonSchema = (input: z.ZodType) =>
  z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as { type: 'object'; [key: string]: unknown };
