import { useEffect, useState } from 'preact/hooks';
import { Link, Problem, Status } from './components';
import { count, duration, share, shortId, usd, when } from './format';
import { html } from './html';
import { query, type Api } from './http';
import { useLoad } from './hooks';
import { followEvents } from './live';
import { hrefs } from './routes';
import type { RunRow, RunsList } from './types';

const STATUSES = ['', 'running', 'completed', 'failed', 'cancelled'];
/** Events that change a row of the table; the others (messages, tool output) leave it as it is. */
const ROW_EVENTS = new Set([
  'RunStarted',
  'StageEntered',
  'ModelResponded',
  'DeliveryChecked',
  'QAReportIssued',
  'ApprovalRequested',
  'ApprovalGiven',
  'ApprovalDenied',
  'RunCompleted',
  'RunFailed',
  'RunCancelled',
  'RunContinued',
]);

interface Filters {
  status: string;
  conversationId: string;
  workflowRunId: string;
}

function RunLine({ run, today }: { run: RunRow; today: string }) {
  return html`<tr data-testid="run-row" data-run-id=${run.runId} data-status=${run.status}>
    <td>
      <${Link} href=${hrefs.run(run.runId)}><code>${shortId(run.runId)}</code><//> <span class="title">${run.title ?? ''}</span>
    </td>
    <td><${Status} status=${run.status} />${run.pendingApproval ? html` <span class="badge waiting">approval</span>` : null}</td>
    <td>${run.stage ?? '–'}</td>
    <td>${run.mode}${run.reasoning ? ' · reasoning' : ''}</td>
    <td>${when(run.startedAt, today)}</td>
    <td class="num">${duration(run.durationMs)}</td>
    <td class="num" title=${`input ${run.tokens.input}, output ${run.tokens.output}, cached ${run.tokens.cached}`}>
      ${count(run.tokens.input)} / ${count(run.tokens.output)}
    </td>
    <td class="num">${usd(run.costUsd)}</td>
    <td class="num">${share(run.cacheShare)}</td>
    <td>${run.delivery ?? '–'}</td>
    <td>
      ${run.qa ? html`<span class=${`badge qa-${run.qa.verdict}`}>${run.qa.verdict}${run.qa.findings ? ` (${run.qa.findings})` : ''}</span>` : '–'}
    </td>
  </tr>`;
}

export function RunsPage({ api }: { api: Api }) {
  const [filters, setFilters] = useState<Filters>({ status: '', conversationId: '', workflowRunId: '' });
  const [pages, setPages] = useState<string[]>([]);
  const before = pages[pages.length - 1];
  const list = useLoad(
    () => api.get<RunsList>(`/runs${query({ limit: 50, before, ...filters })}`),
    [filters.status, filters.conversationId, filters.workflowRunId, before],
  );
  // Only the newest page moves: an older page stays as it was read.
  useEffect(() => {
    if (before !== undefined) return;
    return followEvents({ token: api.token, onEvent: (event) => ROW_EVENTS.has(event.type) && list.reload() });
  }, [before, api]);
  useEffect(() => {
    if (list.value && !performance.getEntriesByName('runs-visible').length) performance.mark('runs-visible');
  }, [list.value]);
  const today = new Date().toISOString().slice(0, 10);
  const set = (key: keyof Filters) => (event: Event) => {
    setPages([]);
    setFilters({ ...filters, [key]: (event.currentTarget as HTMLInputElement).value.trim() });
  };
  const runs = list.value?.runs ?? [];
  return html`<section>
    <h1>Runs</h1>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label
        >Status
        <select data-testid="filter-status" value=${filters.status} onChange=${set('status')}>
          ${STATUSES.map((s) => html`<option value=${s}>${s || 'any'}</option>`)}
        </select></label
      >
      <label>Conversation <input value=${filters.conversationId} onChange=${set('conversationId')} placeholder="id" /></label>
      <label>Workflow <input value=${filters.workflowRunId} onChange=${set('workflowRunId')} placeholder="id" /></label>
    </form>
    <${Problem} error=${list.error} />
    <table class="runs" data-testid="runs-table" data-ready=${list.value ? 'true' : 'false'}>
      <thead>
        <tr>
          <th>Run</th>
          <th>Status</th>
          <th>Stage</th>
          <th>Mode</th>
          <th>Started</th>
          <th>Duration</th>
          <th>Tokens in / out</th>
          <th>Cost</th>
          <th>Cache</th>
          <th>Delivery</th>
          <th>QA</th>
        </tr>
      </thead>
      <tbody>
        ${runs.map((run) => html`<${RunLine} key=${run.runId} run=${run} today=${today} />`)}
      </tbody>
    </table>
    ${list.value && runs.length === 0 ? html`<p class="muted">No runs.</p>` : null}
    <nav class="pager">
      <button disabled=${pages.length === 0} onClick=${() => setPages([])}>Newest</button>
      <button disabled=${pages.length === 0} onClick=${() => setPages(pages.slice(0, -1))}>← Newer</button>
      <button data-testid="older" disabled=${!list.value?.next} onClick=${() => list.value?.next && setPages([...pages, list.value.next])}>
        Older →
      </button>
    </nav>
  </section>`;
}
