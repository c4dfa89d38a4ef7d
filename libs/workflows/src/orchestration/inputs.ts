import { ApprovalDecision, CancelledBy, ErrorCode, EventData, WorkflowStepsSnapshot } from '@stagecraft/contracts';

/** One file a merge left as the user has it, and where the ticket's version is kept. */
export type MergeConflictReport = EventData<'WorktreesMerged'>['conflicts'][number];
import { z } from 'zod';
import { WorkflowStartRequest } from '@stagecraft/contracts';

export type ParsedWorkflowStart = z.output<typeof WorkflowStartRequest>;

/** What the workflow's shell observed, in the past tense; `at` is when (the decider reads no clock). */
export type WorkflowInput =
  | {
      type: 'WorkflowRequested';
      workflowId: string;
      request: ParsedWorkflowStart;
      /** The project root, resolved and checked by the shell. */
      projectRoot: string;
      isolation: 'git-worktree' | 'copy';
      /** The working tree as the shell recorded it (docs/decisions/0036), when the workflow has a tickets phase. */
      snapshot?: { id: string; files: number };
      /** A seed-004 workflow's steps, when the request names one. */
      steps?: WorkflowStepsSnapshot;
      at: string;
    }
  /** An agent's run ended: its answer, or why it failed. */
  | {
      type: 'AgentFinished';
      runId: string;
      outcome: 'completed' | 'failed';
      answer: string;
      failure?: { code: ErrorCode; reason: string };
      at: string;
    }
  /** The ticket agents' copies were merged back into the project root. */
  | {
      type: 'WorktreesMerged';
      merged: { agentId: string; files: string[] }[];
      conflicts: MergeConflictReport[];
      snapshotId?: string;
      at: string;
    }
  /** The ticket collector's resolved contents were written where the user's file was still the merge's. */
  | {
      type: 'ConflictsResolved';
      phase: string;
      round: number;
      resolved: string[];
      unresolved: { path: string; reason: string }[];
      at: string;
    }
  | { type: 'ApprovalAnswered'; approvalId?: string; decision: ApprovalDecision; reason?: string; at: string }
  /** Someone asked to stop the workflow. */
  | { type: 'WorkflowCancelRequested'; by: CancelledBy; reason: string; at: string }
  /** The shell could not go on. */
  | { type: 'WorkflowStopped'; fault: { code: ErrorCode; message: string }; at: string };
