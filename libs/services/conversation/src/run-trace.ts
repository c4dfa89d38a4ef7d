import { RunState } from '@stagecraft/run';
import {
  Span,
  inSpan,
  recordFailure,
  recordRunEnded,
  recordRunStarted,
  recordStage,
  secondsSince,
  startSpan,
  withRunContext,
} from '@stagecraft/telemetry';

type Outcome = Parameters<typeof recordRunEnded>[0];

interface OpenStage {
  key: string;
  stage: string;
  span: Span | null;
  startedAt: number;
}

/**
 * One drive of a run as telemetry sees it: a `run` span for the drive's whole life (a child of whatever
 * started it, the `conversation.send` request for a new run), one `stage <name>` span per stage entry
 * beneath it, and the run and stage metrics. A run that waits for a person ends its drive; the answer
 * drives it again under a new `run` span.
 */
export class RunTrace {
  private stage: OpenStage | null = null;

  private constructor(
    private readonly runId: string,
    private readonly span: Span | null,
  ) {}

  static start(runId: string, state: RunState): RunTrace {
    recordRunStarted();
    const attributes =
      state.status === 'new'
        ? { 'stagecraft.run_id': runId }
        : {
            'stagecraft.run_id': runId,
            'stagecraft.conversation_id': state.start.conversationId,
            'stagecraft.user_mode': state.start.userMode,
            'stagecraft.reasoning': state.start.reasoningEnabled,
          };
    return new RunTrace(runId, startSpan('run', attributes));
  }

  /** Runs the whole drive with the run span and the run id in context (every log line names the run). */
  drive<T>(fn: () => Promise<T>): Promise<T> {
    return withRunContext(this.runId, () => inSpan(this.span, fn));
  }

  /** Notes the stage the run is in now; a new stage entry ends the previous one's span. */
  enter(state: RunState): void {
    const current = state.status === 'running' ? state.current : null;
    const key = current ? `${current.stage}#${current.iteration}` : null;
    if (key === this.stage?.key) return;
    this.closeStage();
    if (!current || !key) return;
    const span = inSpan(this.span, () =>
      startSpan(`stage ${current.stage}`, { 'stagecraft.stage': current.stage, 'stagecraft.iteration': current.iteration }),
    );
    this.stage = { key, stage: current.stage, span, startedAt: performance.now() };
  }

  /** Runs one step of the current stage under its span. */
  inStage<T>(fn: () => Promise<T>): Promise<T> {
    return inSpan(this.stage?.span ?? null, fn);
  }

  end(state: RunState, error?: unknown): void {
    this.closeStage();
    const outcome: Outcome =
      error !== undefined || state.status === 'new' ? 'stopped' : state.status === 'running' ? 'waiting' : state.status;
    recordRunEnded(outcome);
    if (!this.span) return;
    this.span.setAttribute('stagecraft.outcome', outcome);
    if (error !== undefined) recordFailure(this.span, error);
    else if (state.status === 'failed') recordFailure(this.span, { code: state.failure.code, message: state.failure.reason });
    this.span.end();
  }

  private closeStage(): void {
    if (!this.stage) return;
    recordStage(this.stage.stage, secondsSince(this.stage.startedAt));
    this.stage.span?.end();
    this.stage = null;
  }
}
