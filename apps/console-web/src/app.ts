import { useEffect, useMemo, useState } from 'preact/hooks';
import { ConversationPage, ConversationsPage } from './conversation-page';
import { Link } from './components';
import { html } from './html';
import { api } from './http';
import { NAVIGATE } from './navigation';
import { hrefs, routeOf, type Route } from './routes';
import { RunPage } from './run-page';
import { RunsPage } from './runs-page';
import { WorkflowPage, WorkflowsPage } from './workflow-page';

function Page({ route, token }: { route: Route; token: string }) {
  const client = useMemo(() => api(token), [token]);
  switch (route.page) {
    case 'runs':
      return html`<${RunsPage} api=${client} />`;
    case 'run':
      return html`<${RunPage} api=${client} runId=${route.runId} />`;
    case 'workflows':
      return html`<${WorkflowsPage} api=${client} />`;
    case 'workflow':
      return html`<${WorkflowPage} api=${client} workflowRunId=${route.workflowRunId} />`;
    case 'conversations':
      return html`<${ConversationsPage} api=${client} />`;
    case 'conversation':
      return html`<${ConversationPage} api=${client} conversationId=${route.conversationId} />`;
    case 'not-found':
      return html`<section>
        <h1>Not found</h1>
        <p>No page at <code>${route.path}</code>.</p>
      </section>`;
    default: {
      const unreachable: never = route;
      return unreachable;
    }
  }
}

function NoToken() {
  return html`<section>
    <h1>Sign in</h1>
    <p>
      Open the console with the link the server printed (<code>http://HOST:PORT/#token=…</code>): the token in it is kept for this tab only.
    </p>
  </section>`;
}

export function App({ token }: { token: string | null }) {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => {
      setPath(location.pathname);
      window.scrollTo(0, 0);
    };
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE, update);
    };
  }, []);
  const route = routeOf(path);
  return html`<header class="top">
      <strong class="brand">Stagecraft</strong>
      <nav>
        <${Link} href=${hrefs.runs()}>Runs<//><${Link} href=${hrefs.workflows()}>Workflows<//
        ><${Link} href=${hrefs.conversations()}>Conversations<//>
      </nav>
    </header>
    <main>${token ? html`<${Page} key=${path} route=${route} token=${token} />` : html`<${NoToken} />`}</main>`;
}
