import { useEffect, useState } from 'preact/hooks';
import { Diff, Fold, Json, Link, Problem, Status, Text } from './components';
import { count, duration, share, usd } from './format';
import { html } from './html';
import type { Api } from './http';
import { useLoad } from './hooks';
import { followEvents, type LiveEvent } from './live';
import { RunActions } from './run-actions';
import { reasoningOutcomes, stageSpans, toolCalls, withEvent, type ToolCallView } from './run-view';
import { hrefs } from './routes';
import type { Diffs, ModelRequest, QAReport, Requests, RunDetail, Timeline, TimelineEvent } from './types';

function Summary({ run }: { run: RunDetail }) {
  const cells: [string, unknown][] = [
    ['Stage', run.stage ?? '–'],
    ['Mode', `${run.mode}${run.reasoning ? ' · reasoning' : ''}`],
    ['Duration', duration(run.durationMs)],
    ['Tokens', `${count(run.tokens.input)} in · ${count(run.tokens.output)} out · ${count(run.tokens.cached)} cached`],
    ['Cost', usd(run.costUsd)],
    ['Cache share', share(run.cacheShare)],
    ['Model calls', run.modelCalls],
    ['Delivery', run.delivery ?? '–'],
    ['QA', run.qa ? `${run.qa.verdict} (${run.qa.findings} findings)` : '–'],
  ];
  return html`<dl class="summary">
    ${cells.map(
      ([k, v]) =>
        html`<div>
          <dt>${k}</dt>
          <dd>${v}</dd>
        </div>`,
    )}
  </dl>`;
}

function Stages({ events }: { events: readonly TimelineEvent[] }) {
  const spans = stageSpans(events);
  return html`<ol class="stages" data-testid="stages">
    ${spans.map(
      (span) =>
        html`<li class=${span.until ? 'stage' : 'stage current'}>
          <strong>${span.stage}</strong>${span.iteration ? ` #${span.iteration}` : ''}
          <span class="muted"
            >${span.at.slice(11, 19)}${span.until ? ` · ${duration(Date.parse(span.until) - Date.parse(span.at))}` : ' · now'}</span
          >
        </li>`,
    )}
  </ol>`;
}

function RequestCard({ request, index }: { request: ModelRequest; index: number }) {
  const r = request.response;
  return html`<article class="card request" data-testid="request">
    <h3>
      #${index + 1} · ${request.stage}${request.model ? ` · ${request.model}` : ''}
      <span class="muted">
        · ${request.tools.length}
        tools${request.toolChoice === 'none' ? ' (none callable)' : ''}${r.usage ? ` · ${r.usage.promptTokens} in / ${r.usage.completionTokens} out` : ''}</span
      >
    </h3>
    <${Fold} summary=${`Prompt as sent (${request.messages.length} messages)`} testId="prompt">
      ${request.messagesRestored ? null : html`<p class="muted">The prompt bodies of this request were not kept.</p>`}
      ${request.messages.map(
        (m) =>
          html`<div class=${`message role-${m.role.replace(/[^a-z]/g, '')}`}>
            <div class="role">${m.role}</div>
            <${Text} text=${m.content} />
          </div>`,
      )}
    <//>
    <div class="answer">
      <div class="role">answer${r.finishReason ? ` · ${r.finishReason}` : ''}</div>
      ${r.text ? html`<${Text} text=${r.text} testId="response" />` : null}
      ${r.toolCalls.map((c) => html`<div class="call"><code>${c.name}</code><${Text} text=${c.arguments} /></div>`)}
    </div>
  </article>`;
}

function ToolCallCard({ call, changes }: { call: ToolCallView; changes: ToolCallView['changes'] }) {
  return html`<article class="card tool-call" data-testid="tool-call" data-call-id=${call.callId} data-state=${call.state}>
    <h3>
      <code>${call.tool}</code> <span class=${`badge call-${call.state}`}>${call.state}</span>
      <span class="muted"
        >${call.stage ? ` · ${call.stage}` : ''}${call.durationMs !== undefined ? ` · ${duration(call.durationMs)}` : ''}</span
      >
    </h3>
    ${call.arguments !== undefined ? html`<${Fold} summary="Arguments"><${Json} value=${call.arguments} /><//>` : null}
    ${call.reason ? html`<p class="problem">${call.reason}</p>` : null} ${changes.map((change) => html`<${Diff} change=${change} />`)}
    ${
      call.output !== undefined
        ? html`<${Fold} summary=${`Output${call.truncated ? ' (truncated)' : ''} · ${call.output.length} chars`} testId="tool-output"
            ><${Text} text=${call.output}
          /><//>`
        : null
    }
  </article>`;
}

function Qa({ report }: { report: QAReport }) {
  return html`<section class="card qa" data-testid="qa-report">
    <h2>QA report <span class=${`badge qa-${report.verdict}`}>${report.verdict}</span></h2>
    <${Text} text=${report.summary} />
    <ul>
      ${report.findings.map((f) => html`<li><span class=${`badge sev-${f.severity}`}>${f.severity}</span> ${f.file ? html`<code>${f.file}</code> ` : null}${f.message}</li>`)}
    </ul>
  </section>`;
}

function EventLog({ events }: { events: readonly TimelineEvent[] }) {
  return html`<${Fold} summary=${`All events (${events.length})`} testId="timeline">
    <ol class="events">
      ${events.map(
        (e) =>
          html`<li>
            <span class="muted">${e.position} · ${e.at.slice(11, 23)}</span> <strong>${e.type}</strong>${e.stage ? ` · ${e.stage}` : ''}
            <${Fold} summary="data"><${Json} value=${e.data} /><//>
          </li>`,
      )}
    </ol>
  <//>`;
}

const asTimelineEvent = (event: LiveEvent, stage: string | undefined): TimelineEvent | null => {
  if (!event.position || !event.data || typeof event.data !== 'object') return null;
  const data = event.data as Record<string, unknown>;
  const at = event.metadata?.occurredAt ?? new Date().toISOString();
  const entered = event.type === 'StageEntered' && typeof data.stage === 'string' ? data.stage : stage;
  return {
    position: event.position,
    type: event.type as TimelineEvent['type'],
    at,
    ...(entered ? { stage: entered as TimelineEvent['stage'] } : {}),
    data,
  };
};

export function RunPage({ api, runId }: { api: Api; runId: string }) {
  const path = `/runs/${encodeURIComponent(runId)}`;
  const detail = useLoad(() => api.get<RunDetail>(path), [runId]);
  const requests = useLoad(() => api.get<Requests>(`${path}/requests`), [runId]);
  const diffs = useLoad(() => api.get<Diffs>(`${path}/diffs`), [runId]);
  const [events, setEvents] = useState<TimelineEvent[] | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [live, setLive] = useState<'live' | 'reconnecting' | 'off'>('off');

  // The timeline is read once, then followed from its last position: nothing between them is lost.
  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    setEvents(null);
    api.get<Timeline>(`${path}/timeline`).then(
      (timeline) => {
        if (cancelled) return;
        setEvents(timeline.events);
        let stage = [...timeline.events].reverse().find((e) => e.stage)?.stage as string | undefined;
        stop = followEvents({
          token: api.token,
          runId,
          after: timeline.events[timeline.events.length - 1]?.position,
          onState: setLive,
          onEvent: (event) => {
            const entry = asTimelineEvent(event, stage);
            if (!entry) return;
            stage = entry.stage ?? stage;
            setEvents((current) => withEvent(current ?? [], entry));
            detail.reload();
            if (event.type === 'ModelResponded') requests.reload();
            if (event.type === 'ToolCallCompleted') diffs.reload();
          },
        });
      },
      (e: unknown) => !cancelled && setError(e),
    );
    return () => {
      cancelled = true;
      stop?.();
      setLive('off');
    };
  }, [runId, api]);

  const run = detail.value;
  if (!run)
    return html`<section>
      <h1>Run <code>${runId}</code></h1>
      <${Problem} error=${detail.error} />${detail.error ? null : html`<p class="muted">Loading…</p>`}
    </section>`;
  const timeline = events ?? [];
  const byCall = new Map<string, ToolCallView['changes']>();
  for (const change of diffs.value?.changes ?? []) byCall.set(change.callId, [...(byCall.get(change.callId) ?? []), change]);
  const calls = toolCalls(timeline);
  const outcomes = reasoningOutcomes(timeline);
  const cause = run.failure
    ? `${run.failure.code}: ${run.failure.reason}`
    : run.cancellation
      ? `cancelled by ${run.cancellation.by}: ${run.cancellation.reason || '(no reason)'}`
      : run.cause;
  return html`<section class="run" data-testid="run-page" data-run-id=${run.runId}>
    <h1>
      Run <code>${run.runId}</code> <span data-testid="run-status"><${Status} status=${run.status} /></span>
      <span class=${`live live-${live}`} data-testid="live"
        >${live === 'live' ? '● live' : live === 'reconnecting' ? '○ reconnecting' : ''}</span
      >
    </h1>
    <p class="muted">
      Conversation
      <${Link} href=${hrefs.conversation(run.conversationId)}><code>${run.conversationId}</code><//>
      ${run.workflowId ? html` · workflow <${Link} href=${hrefs.workflow(run.workflowId)}><code>${run.workflowId}</code><//>` : null}
      ${run.projectRoot ? html` · <code>${run.projectRoot}</code>` : null}
    </p>
    <${Problem} error=${detail.error ?? error} />
    <${RunActions} api=${api} run=${run} onDone=${detail.reload} />
    ${cause ? html`<p class="problem cause" data-testid="cause">${cause}</p>` : null}
    <${Summary} run=${run} />
    <h2>Request</h2>
    <${Text} text=${run.userInput} />
    ${
      run.answer !== undefined
        ? html`<h2>Answer</h2>
            <${Text} text=${run.answer} testId="answer" />`
        : null
    }
    <h2>Stages</h2>
    <${Stages} events=${timeline} />
    ${run.qaReport ? html`<${Qa} report=${run.qaReport} />` : null}
    <h2>Model requests (${requests.value?.requests.length ?? '…'})</h2>
    <${Problem} error=${requests.error} />
    ${(requests.value?.requests ?? []).map((request, index) => html`<${RequestCard} key=${request.requestId} request=${request} index=${index} />`)}
    ${
      outcomes.length
        ? html`<h2>Reasoning outcomes</h2>
            ${outcomes.map((o) => html`<article class="card reasoning" data-testid="reasoning"><${Json} value=${o.outcome} /></article>`)}`
        : null
    }
    <h2>Tool calls (${calls.length})</h2>
    ${calls.map((call) => html`<${ToolCallCard} key=${call.callId} call=${call} changes=${byCall.get(call.callId) ?? call.changes} />`)}
    <${EventLog} events=${timeline} />
  </section>`;
}
