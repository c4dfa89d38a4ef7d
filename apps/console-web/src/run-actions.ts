import { useState } from 'preact/hooks';
import { Json, Problem } from './components';
import { html } from './html';
import type { Api } from './http';
import type { PendingApproval, RunDetail } from './types';

/** One tool call or gate waiting for a person: approve, or deny with a reason the run is told. */
export function ApprovalCard({ api, approval, onDone }: { api: Api; approval: PendingApproval; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const answer = (decision: 'approve' | 'deny') => {
    setBusy(true);
    setError(undefined);
    const body = decision === 'deny' ? { decision, reason: reason.trim() || 'denied from the console' } : { decision };
    api
      .post(`/approvals/${encodeURIComponent(approval.approvalId)}`, body)
      .then(onDone, setError)
      .finally(() => setBusy(false));
  };
  return html`<div class="approval" data-testid="approval" data-approval-id=${approval.approvalId}>
    <p><strong>Waiting for approval</strong> (${approval.kind}${approval.tool ? ` · ${approval.tool}` : ''}): ${approval.summary}</p>
    ${approval.arguments ? html`<${Json} value=${approval.arguments} />` : null}
    <div class="actions">
      <button class="approve" data-testid="approve" disabled=${busy} onClick=${() => answer('approve')}>Approve</button>
      <input
        data-testid="deny-reason"
        placeholder="reason for denying"
        maxlength=${2000}
        value=${reason}
        onInput=${(e: Event) => setReason((e.currentTarget as HTMLInputElement).value)}
      />
      <button class="deny" data-testid="deny" disabled=${busy} onClick=${() => answer('deny')}>Deny</button>
    </div>
    <${Problem} error=${error} />
  </div>`;
}

export function RunActions({ api, run, onDone }: { api: Api; run: RunDetail; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const post = (action: 'cancel' | 'resume', body: object) => {
    setBusy(true);
    setError(undefined);
    api
      .post(`/runs/${encodeURIComponent(run.runId)}/${action}`, body)
      .then(onDone, setError)
      .finally(() => setBusy(false));
  };
  return html`<div class="run-actions">
    ${run.pendingApprovals.map((approval) => html`<${ApprovalCard} key=${approval.approvalId} api=${api} approval=${approval} onDone=${onDone} />`)}
    ${
      run.status === 'running'
        ? html`<div class="actions">
            <input
              data-testid="cancel-reason"
              placeholder="reason for cancelling"
              maxlength=${500}
              value=${reason}
              onInput=${(e: Event) => setReason((e.currentTarget as HTMLInputElement).value)}
            />
            <button
              class="cancel"
              data-testid="cancel"
              disabled=${busy}
              onClick=${() => post('cancel', reason.trim() ? { reason: reason.trim() } : {})}
            >
              Cancel run
            </button>
          </div>`
        : null
    }
    ${
      run.status === 'cancelled'
        ? html`<div class="actions">
            <button data-testid="resume" disabled=${busy} onClick=${() => post('resume', {})}>Resume run</button>
          </div>`
        : null
    }
    <${Problem} error=${error} />
  </div>`;
}
