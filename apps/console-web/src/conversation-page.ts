import { useEffect } from 'preact/hooks';
import { Link, Problem, Status, Text } from './components';
import { shortId, when } from './format';
import { html } from './html';
import type { Api } from './http';
import { useLoad } from './hooks';
import { followEvents } from './live';
import { hrefs } from './routes';
import type { ConversationDetail, ConversationsList } from './types';

const TURN_EVENTS = new Set(['RunStarted', 'RunCompleted', 'RunFailed', 'RunCancelled', 'RunContinued']);

export function ConversationPage({ api, conversationId }: { api: Api; conversationId: string }) {
  const conversation = useLoad(() => api.get<ConversationDetail>(`/conversations/${encodeURIComponent(conversationId)}`), [conversationId]);
  useEffect(
    () =>
      followEvents({
        token: api.token,
        onEvent: (e) => TURN_EVENTS.has(e.type) && e.metadata?.conversationId === conversationId && conversation.reload(),
      }),
    [conversationId, api],
  );
  const c = conversation.value;
  if (!c)
    return html`<section>
      <h1>Conversation <code>${conversationId}</code></h1>
      <${Problem} error=${conversation.error} />
    </section>`;
  const today = new Date().toISOString().slice(0, 10);
  return html`<section class="conversation" data-testid="conversation-page">
    <h1>Conversation <code>${c.conversationId}</code></h1>
    ${c.projectRoot ? html`<p class="muted"><code>${c.projectRoot}</code></p>` : null}
    <ol class="turns">
      ${c.turns.map(
        (turn, i) =>
          html`<li class="card turn" data-testid="turn">
            <h3>
              Turn ${i + 1} <${Status} status=${turn.status} />
              <span class="muted">${when(turn.startedAt, today)}</span>
              ${turn.runIds.map((runId) => html` <${Link} href=${hrefs.run(runId)} testId="turn-run"><code>${shortId(runId)}</code><//>`)}
            </h3>
            <div class="role">user</div>
            <${Text} text=${turn.userMessage} />
            ${
              turn.answer !== undefined
                ? html`<div class="role">answer</div>
                    <${Text} text=${turn.answer} />`
                : null
            }
          </li>`,
      )}
    </ol>
  </section>`;
}

export function ConversationsPage({ api }: { api: Api }) {
  const list = useLoad(() => api.get<ConversationsList>('/conversations?limit=200'), []);
  const today = new Date().toISOString().slice(0, 10);
  return html`<section>
    <h1>Conversations</h1>
    <${Problem} error=${list.error} />
    <table data-testid="conversations-table">
      <thead>
        <tr>
          <th>Conversation</th>
          <th>Title</th>
          <th>Runs</th>
          <th>Last run</th>
          <th>Updated</th>
        </tr>
      </thead>
      <tbody>
        ${(list.value?.conversations ?? []).map(
          (c) =>
            html`<tr>
              <td>
                <${Link} href=${hrefs.conversation(c.conversationId)}><code>${shortId(c.conversationId)}</code><//>
              </td>
              <td class="title">${c.title ?? ''}</td>
              <td class="num">${c.runs}</td>
              <td>
                <${Link} href=${hrefs.run(c.lastRunId)}><code>${shortId(c.lastRunId)}</code><//> <${Status} status=${c.lastStatus} />
              </td>
              <td>${when(c.updatedAt, today)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${list.value && list.value.conversations.length === 0 ? html`<p class="muted">No conversations.</p>` : null}
  </section>`;
}
