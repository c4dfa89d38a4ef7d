import type { CancelledBy, DeliveryState } from '../common';
import type { QAReport } from '../qa';
import type { FeedEvent } from './v1';

/** What the feed has said of a run so far, whatever its state: the last review, and `DONE` once any check said so. */
interface Progress {
  deliveryState: DeliveryState | null;
  qaReport: QAReport | null;
  /** The tool calls of the current step still waiting for their results. */
  openCalls: readonly string[];
}

/**
 * A run as a client sees it on the public feed. `new`: no `RunStarted` seen (a follower that joined
 * late); the ended states keep what was reported before the end.
 */
export type FeedRun =
  | { status: 'new' }
  | ({ status: 'running' } & Progress)
  | ({ status: 'completed'; answer: string; deliveryState: DeliveryState } & Omit<Progress, 'deliveryState'>)
  | ({ status: 'failed'; failure: { code: string; reason: string } } & Progress)
  | ({ status: 'cancelled'; cancellation: { by: CancelledBy; reason: string } } & Progress);

const STARTED: FeedRun = { status: 'running', deliveryState: null, qaReport: null, openCalls: [] };

/** What a cancelled run still reports: the answers that were in flight when it was cancelled. */
const LATE_ANSWERS: ReadonlySet<FeedEvent['type']> = new Set(['ModelRequested', 'ModelResponded', 'ToolCallCompleted', 'ToolCallRejected']);

/** The step's open tool calls after `event`: a new step (stage, request, answer, correction) has none. */
function openCallsAfter(open: readonly string[], event: FeedEvent): readonly string[] {
  switch (event.type) {
    case 'ToolCallRequested':
      return [...open, event.data.callId];
    case 'ToolCallCompleted':
    case 'ToolCallRejected':
      return open.filter((id) => id !== event.data.callId);
    case 'StageEntered':
    case 'ModelRequested':
    case 'ModelResponded':
      return [];
    case 'MessageAppended':
      return event.data.kind === 'correction' ? [] : open;
    default:
      return open;
  }
}

function evolveRunning(run: Extract<FeedRun, { status: 'running' }>, event: FeedEvent): FeedRun {
  const progress = { ...run, openCalls: openCallsAfter(run.openCalls, event) };
  switch (event.type) {
    // DONE is final: nothing after it turns the run back to NEEDS_WORK.
    case 'DeliveryChecked':
      return { ...progress, deliveryState: run.deliveryState === 'DONE' ? 'DONE' : event.data.state };
    case 'QAReportIssued':
      return { ...progress, qaReport: event.data.report };
    case 'RunCompleted':
      return {
        status: 'completed',
        answer: event.data.answer,
        deliveryState: run.deliveryState === 'DONE' ? 'DONE' : event.data.deliveryState,
        qaReport: run.qaReport,
        openCalls: progress.openCalls,
      };
    case 'RunFailed':
      return { ...progress, status: 'failed', failure: { code: event.data.code, reason: event.data.reason } };
    case 'RunCancelled':
      return { ...progress, status: 'cancelled', cancellation: { by: event.data.by, reason: event.data.reason } };
    default:
      return progress;
  }
}

/** One public event applied to what a client knows of its run. */
export function evolveFeedRun(run: FeedRun, event: FeedEvent): FeedRun {
  switch (run.status) {
    case 'new':
      return event.type === 'RunStarted' ? STARTED : run;
    case 'running':
      return evolveRunning(run, event);
    case 'cancelled':
      if (event.type === 'RunContinued')
        return { status: 'running', deliveryState: run.deliveryState, qaReport: run.qaReport, openCalls: run.openCalls };
      return LATE_ANSWERS.has(event.type) ? { ...run, openCalls: openCallsAfter(run.openCalls, event) } : run;
    case 'completed':
    case 'failed':
      return run;
    default: {
      const unreachable: never = run;
      return unreachable;
    }
  }
}

/** A run folded from its public events: how the CLI, MCP and any other client read the feed. */
export const foldFeedRun = (events: readonly FeedEvent[]): FeedRun => events.reduce(evolveFeedRun, { status: 'new' } as FeedRun);
