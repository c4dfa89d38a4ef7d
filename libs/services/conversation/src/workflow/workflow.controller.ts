import {
  ApprovalAnswerReply,
  ApprovalAnswerRequest,
  StagecraftError,
  WorkflowCancelReply,
  WorkflowCancelRequest,
  WorkflowGetReply,
  WorkflowGetRequest,
  WorkflowStartReply,
  WorkflowStepsSnapshot,
  WorkflowStartRequest,
  WorkflowStep,
} from '@stagecraft/contracts';
import { withinProjectRoots } from '@stagecraft/contracts';
import { checkProjectRoot } from '@stagecraft/tools';
import { ParsedWorkflowStart, workflowView } from '@stagecraft/workflows';
import type { z } from 'zod';
import type { DriverPorts } from '../driver-ports';
import { WorkflowLog } from './workflow-log';
import { takeSnapshot } from './snapshot';
import { cancelWorkflow } from './workflow-cancel';
import { isolationFor } from './worktrees';

/** Seed-004 workflows are short; a longer one is refused rather than walked forever. */
const MAX_STEPS = 100;

/** `workflow.start`, `workflow.cancel` and `workflow.get`: a workflow is started, stopped and looked at through its log. */
export class WorkflowHandlers {
  constructor(private readonly ports: DriverPorts) {}

  /** Starts a workflow and answers at once with its id; its agents are dispatched from the log. */
  async start(request: z.output<typeof WorkflowStartRequest>): Promise<WorkflowStartReply> {
    const projectRoot = await checkProjectRoot(request.projectRoot, this.ports.projectRoots);
    const workflowId = request.workflowId ?? this.ports.newId();
    const [log, steps, isolation] = await Promise.all([
      WorkflowLog.open(this.ports, workflowId),
      request.workflow ? this.stepsOf(request.workflow) : Promise.resolve(undefined),
      isolationFor(projectRoot),
    ]);
    if (log.state.status !== 'new') throw new StagecraftError('CONFLICT', `workflow ${workflowId} already exists`);
    // Ticket work starts from the working tree as the user has it now, and merges back against it.
    const ticketsPhase = !steps && (request.phases ?? []).includes('tickets');
    const snapshot = ticketsPhase ? await takeSnapshot(projectRoot, isolation) : undefined;
    await log.decide({
      type: 'WorkflowRequested',
      workflowId,
      request: request as ParsedWorkflowStart,
      projectRoot,
      isolation,
      ...(steps ? { steps } : {}),
      ...(snapshot ? { snapshot } : {}),
      at: this.ports.clock().toISOString(),
    });
    return { workflowId };
  }

  cancel(request: z.output<typeof WorkflowCancelRequest>): Promise<WorkflowCancelReply> {
    return cancelWorkflow(this.ports, request);
  }

  async get(request: WorkflowGetRequest): Promise<WorkflowGetReply> {
    const log = await WorkflowLog.open(this.ports, request.workflowId);
    // A workflow of a project this deployment does not serve is answered as one that does not exist.
    if (log.state.status === 'new' || !withinProjectRoots(log.state.start.projectRoot, this.ports.projectRoots))
      throw new StagecraftError('NOT_FOUND', `no workflow ${request.workflowId}`);
    return workflowView(log.state);
  }

  /** Seed 004: the steps as `workflow.next` serves them, walked once, so the workflow keeps the definition it started with. */
  private async stepsOf(definitionId: string): Promise<WorkflowStepsSnapshot> {
    const steps: WorkflowStep[] = [];
    for (;;) {
      const reply = await this.ports.requester.request('workflow.next', {
        workflowId: definitionId,
        completedSteps: steps.map((s) => s.id),
      });
      if (reply.isComplete || reply.step === null) break;
      steps.push(reply.step);
      if (steps.length > MAX_STEPS)
        throw new StagecraftError('LIMIT_EXCEEDED', `workflow ${definitionId} has more than ${MAX_STEPS} steps`);
    }
    if (steps.length === 0) throw new StagecraftError('VALIDATION', `workflow ${definitionId} has no steps`);
    return { definitionId, name: definitionId, steps };
  }
}

/** `approval.answer` for an id that is a workflow's; null when no workflow of a served project has that id. */
export async function answerWorkflowApproval(ports: DriverPorts, request: ApprovalAnswerRequest): Promise<ApprovalAnswerReply | null> {
  const log = await WorkflowLog.open(ports, request.id);
  const state = log.state;
  // Another project's workflow is left to the run's path, which answers it as an unknown run.
  if (state.status === 'new' || !withinProjectRoots(state.start.projectRoot, ports.projectRoots)) return null;
  // The decider refuses an approval id that is not the pending one, before anything is appended.
  await log.decide({
    type: 'ApprovalAnswered',
    approvalId: request.approvalId,
    decision: request.decision,
    ...(request.reason ? { reason: request.reason } : {}),
    at: ports.clock().toISOString(),
  });
  return { id: request.id, target: 'workflow', approvalId: request.approvalId, decision: request.decision };
}
