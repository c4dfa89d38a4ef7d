import type { PendingApproval, Projection, RecordedEvent, WorkflowStatus } from '@stagecraft/contracts';
import { RunsView, entryOf, runsModel } from '@stagecraft/read-models';

/** What the console shows of a run beyond the runs view: its title, its reviewer's findings, its largest prompt. */
export interface RunExtra {
  title: string;
  qaFindings?: number;
  contextWindow?: number;
}

export interface WorkflowEntry {
  workflowId: string;
  goal: string;
  projectRoot: string;
  status: WorkflowStatus;
  startedAt: string;
  runs: number;
  pendingApproval?: PendingApproval;
}

/**
 * The console's read model: the runs view every client reads (folded by the same `runsModel`), plus the
 * few things the runs table and the workflow list show that it does not keep. Folded in the console's
 * own process from the log, so a list of thousands of runs is a walk over memory, never a log read per run.
 */
export interface ConsoleView {
  runs: RunsView;
  extras: Record<string, RunExtra>;
  workflows: Record<string, WorkflowEntry>;
  /** Workflow ids in the order they started. */
  workflowOrder: string[];
}

const TITLE_CHARS = 120;
const titleOf = (text: string): string => {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
};

const WORKFLOW_ENDS: Record<string, WorkflowStatus> = {
  WorkflowCompleted: 'completed',
  WorkflowHalted: 'stopped',
  WorkflowFailed: 'failed',
  WorkflowCancelled: 'cancelled',
};

type Data = Record<string, unknown>;

function evolveRunExtra(view: ConsoleView, runId: string, event: RecordedEvent): void {
  const data = event.data as Data;
  if (event.type === 'RunStarted') {
    view.extras[runId] = { title: titleOf(String(data.userInput ?? '')) };
    const agent = data.agent as { workflowId?: string } | undefined;
    const workflow = agent?.workflowId ? entryOf(view.workflows, agent.workflowId) : undefined;
    if (workflow) workflow.runs += 1;
    return;
  }
  const extra = entryOf(view.extras, runId);
  if (!extra) return;
  if (event.type === 'QAReportIssued') extra.qaFindings = ((data.report as { findings?: unknown[] }).findings ?? []).length;
  if (event.type === 'ModelRequested') extra.contextWindow = Math.max(extra.contextWindow ?? 0, Number(data.tokenEstimate ?? 0));
}

function evolveWorkflow(view: ConsoleView, workflowId: string, event: RecordedEvent): void {
  const data = event.data as Data;
  if (event.type === 'WorkflowStarted') {
    if (entryOf(view.workflows, workflowId)) return;
    const at = (event.metadata as { occurredAt?: string }).occurredAt ?? event.recordedAt;
    view.workflows[workflowId] = {
      workflowId,
      goal: String(data.goal),
      projectRoot: String(data.projectRoot),
      status: 'running',
      startedAt: at,
      runs: 0,
    };
    view.workflowOrder.push(workflowId);
    return;
  }
  const workflow = entryOf(view.workflows, workflowId);
  if (!workflow) return;
  const ended = entryOf(WORKFLOW_ENDS, event.type);
  if (ended) {
    workflow.status = ended;
    delete workflow.pendingApproval;
  } else if (event.type === 'ApprovalRequested' && workflow.status === 'running') {
    workflow.status = 'waiting';
    workflow.pendingApproval = { ...(data as PendingApproval), requestedAt: (event.metadata as { occurredAt?: string }).occurredAt };
  } else if (
    (event.type === 'ApprovalGiven' || event.type === 'ApprovalDenied') &&
    workflow.pendingApproval?.approvalId === data.approvalId
  ) {
    workflow.status = 'running';
    delete workflow.pendingApproval;
  }
}

const RUN_STREAM = 'run-';
const WORKFLOW_STREAM = 'workflow-';

export const consoleViewModel: Projection<ConsoleView> = {
  name: 'console-view',
  handles: [...new Set([...runsModel.handles, 'WorkflowStarted', ...Object.keys(WORKFLOW_ENDS)])],
  initialState: () => ({ runs: runsModel.initialState(), extras: {}, workflows: {}, workflowOrder: [] }),
  evolve(view, event) {
    if (event.streamId.startsWith(RUN_STREAM)) {
      view.runs = runsModel.evolve(view.runs, event);
      evolveRunExtra(view, event.streamId.slice(RUN_STREAM.length), event);
    } else if (event.streamId.startsWith(WORKFLOW_STREAM)) evolveWorkflow(view, event.streamId.slice(WORKFLOW_STREAM.length), event);
    return view;
  },
};
