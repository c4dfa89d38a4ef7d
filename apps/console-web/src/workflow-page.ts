import { useEffect } from 'preact/hooks';
import { Link, Problem, Status, Text } from './components';
import { shortId, when } from './format';
import { html } from './html';
import type { Api } from './http';
import { useLoad } from './hooks';
import { followEvents } from './live';
import { ApprovalCard } from './run-actions';
import { hrefs } from './routes';
import type { WorkflowDetail, WorkflowsList } from './types';

type Phase = WorkflowDetail['phases'][number];

function PhaseCard({ phase }: { phase: Phase }) {
  return html`<article class="card phase" data-testid="phase">
    <h3>
      ${phase.step ? phase.step.title : phase.phase} <span class="muted">round ${phase.round}</span> <${Status} status=${phase.status} />
    </h3>
    <ul class="agents">
      ${phase.agents.map(
        (agent) =>
          html`<li data-testid="agent">
            <strong>${agent.agentType}</strong> <span class="muted">${agent.role} · ${agent.agentId} · attempt ${agent.attempt}</span>
            <${Status} status=${agent.status} /> run <${Link} href=${hrefs.run(agent.runId)}><code>${shortId(agent.runId)}</code><//>
            ${agent.pendingApproval ? html` <span class="badge waiting">approval: ${agent.pendingApproval.summary}</span>` : null}
            ${agent.summary ? html`<${Text} text=${agent.summary} />` : null}
          </li>`,
      )}
    </ul>
    ${
      phase.decision
        ? html`<div class="decision" data-testid="decision">
            <strong>Collector: ${phase.decision.decisionType}</strong><${Text} text=${phase.decision.rationale} />
          </div>`
        : null
    }
  </article>`;
}

export function WorkflowPage({ api, workflowRunId }: { api: Api; workflowRunId: string }) {
  const workflow = useLoad(() => api.get<WorkflowDetail>(`/workflows/${encodeURIComponent(workflowRunId)}`), [workflowRunId]);
  // A workflow's agents are runs: any run event may move the tree, so it is read again (at most one read in flight).
  useEffect(() => followEvents({ token: api.token, onEvent: () => workflow.reload() }), [workflowRunId, api]);
  const w = workflow.value;
  if (!w)
    return html`<section>
      <h1>Workflow <code>${workflowRunId}</code></h1>
      <${Problem} error=${workflow.error} />
    </section>`;
  return html`<section class="workflow" data-testid="workflow-page">
    <h1>Workflow <code>${w.workflowId}</code> <${Status} status=${w.status} /></h1>
    <p class="muted">${w.kind} · <code>${w.projectRoot}</code> · ${w.eventCount} events</p>
    <h2>Goal</h2>
    <${Text} text=${w.goal} />
    ${w.pendingApproval ? html`<${ApprovalCard} api=${api} approval=${w.pendingApproval} onDone=${workflow.reload} />` : null}
    ${w.failure ? html`<p class="problem cause">${w.failure.code}: ${w.failure.reason}</p>` : null}
    ${w.halt ? html`<p class="problem cause">Stopped in ${w.halt.phase} by ${w.halt.agentId}: ${w.halt.reason}</p>` : null}
    <h2>Phases</h2>
    ${w.phases.map((phase) => html`<${PhaseCard} phase=${phase} />`)}
    ${
      w.worktrees.length
        ? html`<h2>Merges</h2>
            <table>
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Ticket</th>
                  <th>Run</th>
                  <th>State</th>
                  <th>Worktree</th>
                </tr>
              </thead>
              <tbody>
                ${w.worktrees.map(
                  (t) =>
                    html`<tr data-testid="merge">
                      <td>${t.agentId}</td>
                      <td>${t.ticketId ?? '–'}</td>
                      <td>
                        <${Link} href=${hrefs.run(t.runId)}><code>${shortId(t.runId)}</code><//>
                      </td>
                      <td><${Status} status=${t.state} /></td>
                      <td><code>${t.path}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
        : null
    }
    ${
      w.conflicts.length
        ? html`<h2>Conflicts</h2>
            <ul>
              ${w.conflicts.map(
                (c) =>
                  html`<li data-testid="conflict">
                    <code>${c.path}</code> ·
                    ${c.agentIds.join(', ')}${c.reason ? ` · ${c.reason}` : ''}${c.kept ? html` · kept at <code>${c.kept}</code>` : null}
                  </li>`,
              )}
            </ul>`
        : null
    }
    ${
      w.summary
        ? html`<h2>Summary</h2>
            <${Text} text=${w.summary} />`
        : null
    }
  </section>`;
}

export function WorkflowsPage({ api }: { api: Api }) {
  const list = useLoad(() => api.get<WorkflowsList>('/workflows?limit=200'), []);
  const today = new Date().toISOString().slice(0, 10);
  return html`<section>
    <h1>Workflows</h1>
    <${Problem} error=${list.error} />
    <table data-testid="workflows-table">
      <thead>
        <tr>
          <th>Workflow</th>
          <th>Status</th>
          <th>Goal</th>
          <th>Started</th>
          <th>Runs</th>
        </tr>
      </thead>
      <tbody>
        ${(list.value?.workflows ?? []).map(
          (w) =>
            html`<tr>
              <td>
                <${Link} href=${hrefs.workflow(w.workflowId)}><code>${shortId(w.workflowId)}</code><//>
              </td>
              <td><${Status} status=${w.status} /></td>
              <td class="title">${w.goal}</td>
              <td>${when(w.startedAt, today)}</td>
              <td class="num">${w.runs}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${list.value && list.value.workflows.length === 0 ? html`<p class="muted">No workflows.</p>` : null}
  </section>`;
}
