import { FeedEvent, FeedEventOf, PendingApproval, PriceTable, QAReport, apiV1 } from '@stagecraft/contracts';
import { entryOf, recordOf } from '@stagecraft/read-models';
import type { ApiPorts } from '../ports';
import { notFound } from '../reply';
import type { ConsoleView } from '../view/console-view';
import { runFeed } from './feed';
import { runRow } from './row';

type Positioned = FeedEvent & { position: string };
const ofType = <T extends FeedEvent['type']>(events: readonly Positioned[], type: T) =>
  events.filter((e): e is FeedEventOf<T> & { position: string } => e.type === type);

/** The approvals asked for and not answered, while the run has not ended. */
function pendingOf(events: readonly Positioned[]): PendingApproval[] {
  const open = new Map<string, PendingApproval>();
  for (const event of events) {
    if (event.type === 'ApprovalRequested') open.set(event.data.approvalId, { ...event.data, requestedAt: event.metadata.occurredAt });
    else if (event.type === 'ApprovalGiven' || event.type === 'ApprovalDenied') open.delete(event.data.approvalId);
    else if (event.type === 'RunCompleted' || event.type === 'RunFailed' || event.type === 'RunCancelled') open.clear();
  }
  return [...open.values()];
}

/** One run: its row from the view, the rest from its own stream (one read of one stream). */
export async function runDetail(view: ConsoleView, ports: Pick<ApiPorts, 'log' | 'prices'>, runId: string): Promise<apiV1.RunDetail> {
  const entry = entryOf(view.runs.runs, runId);
  if (!entry) throw notFound(`run ${runId}`);
  const events = await runFeed(ports.log, runId);
  const started = ofType(events, 'RunStarted')[0];
  const completed = ofType(events, 'RunCompleted').at(-1);
  const report: QAReport | undefined = ofType(events, 'QAReportIssued').at(-1)?.data.report;
  const record = recordOf(entry);
  const estimates = ofType(events, 'ModelRequested').map((e) => e.data.tokenEstimate);
  return {
    ...runRow(record, entryOf(view.extras, runId), entry.projectRoot ?? null, ports.prices as PriceTable),
    userInput: started?.data.userInput ?? '',
    ...(completed ? { answer: completed.data.answer } : {}),
    ...(started?.data.limits ? { limits: started.data.limits } : {}),
    ...(estimates.length > 0 ? { contextWindow: Math.max(...estimates) } : {}),
    compactions: ofType(events, 'HistoryCompacted').length,
    modelCalls: record.modelCalls,
    pendingApprovals: pendingOf(events),
    ...(record.failure ? { failure: record.failure } : {}),
    ...(record.cancellation ? { cancellation: record.cancellation } : {}),
    ...(report ? { qaReport: report } : {}),
    position: events.at(-1)?.position ?? '0',
  };
}

/** The run's public events with where each sits in the log and the stage the run was in. */
export async function runTimeline(ports: Pick<ApiPorts, 'log'>, runId: string): Promise<{ events: apiV1.TimelineEvent[] }> {
  const events = await runFeed(ports.log, runId);
  if (events.length === 0) throw notFound(`run ${runId}`);
  let stage: string | undefined;
  return {
    events: events.map((event) => {
      if (event.type === 'StageEntered') stage = event.data.stage;
      return {
        position: event.position,
        type: event.type,
        at: event.metadata.occurredAt,
        ...(stage ? { stage: stage as apiV1.TimelineEvent['stage'] } : {}),
        data: event.data as Record<string, unknown>,
      };
    }),
  };
}

/** Each model request of the run: what it offered, the messages it sent (rebuilt from the stored bodies), and the answer. */
export async function runRequests(
  ports: Pick<ApiPorts, 'log' | 'restoreRequests'>,
  runId: string,
): Promise<{ requests: apiV1.ModelRequestView[] }> {
  const events = await runFeed(ports.log, runId);
  if (events.length === 0) throw notFound(`run ${runId}`);
  const sent = new Map((await ports.restoreRequests(ports.log, runId).catch(() => [])).map((r) => [r.requestId, r.messages]));
  const answers = new Map(ofType(events, 'ModelResponded').map((e) => [e.data.requestId, e.data]));
  return {
    requests: ofType(events, 'ModelRequested').map(({ data }) => {
      const answer = answers.get(data.requestId);
      const messages = sent.get(data.requestId);
      return {
        requestId: data.requestId,
        stage: data.stage,
        model: data.model,
        ...(data.toolChoice ? { toolChoice: data.toolChoice } : {}),
        tools: data.toolNames,
        messages: (messages ?? []).map((m) => ({ role: m.role, content: m.content })),
        messagesRestored: messages !== undefined,
        response: {
          text: answer?.content ?? '',
          toolCalls: answer?.toolCalls ?? [],
          ...(answer?.usage ? { usage: answer.usage } : {}),
          finishReason: answer?.finishReason ?? null,
        },
      };
    }),
  };
}

/** The files the run's tool calls changed, in the order the calls completed. */
export async function runDiffs(ports: Pick<ApiPorts, 'log'>, runId: string): Promise<{ changes: apiV1.DiffEntry[] }> {
  const events = await runFeed(ports.log, runId);
  if (events.length === 0) throw notFound(`run ${runId}`);
  return {
    changes: ofType(events, 'ToolCallCompleted').flatMap(({ data }) =>
      (data.changes ?? []).map((change) => ({ callId: data.callId, tool: data.tool, ...change })),
    ),
  };
}
