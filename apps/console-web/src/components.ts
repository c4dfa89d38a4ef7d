import type { ComponentChildren } from 'preact';
import { diffLines } from './format';
import { html } from './html';
import { followLink } from './navigation';
import type { DiffEntry } from './types';

/** A link to one of the console's own pages (`href` comes from `hrefs`, never from event text). */
export function Link({ href, children, testId }: { href: string; children: ComponentChildren; testId?: string }) {
  return html`<a href=${href} onClick=${followLink} data-testid=${testId}>${children}</a>`;
}

export function Status({ status }: { status: string | null | undefined }) {
  const value = status ?? 'unknown';
  return html`<span class=${`badge status-${value.replace(/[^a-z_-]/gi, '')}`} data-status=${value}>${value}</span>`;
}

export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return html`<p class="problem" role="alert">${message}</p>`;
}

/** Long text (prompts, outputs) folded away until asked for. */
export function Fold({
  summary,
  children,
  open = false,
  testId,
}: {
  summary: ComponentChildren;
  children: ComponentChildren;
  open?: boolean;
  testId?: string;
}) {
  return html`<details open=${open} data-testid=${testId}>
    <summary>${summary}</summary>
    ${children}
  </details>`;
}

export function Text({ text, testId }: { text: string; testId?: string }) {
  return html`<pre class="text" data-testid=${testId}>${text}</pre>`;
}

/** A unified diff, line by line, coloured by kind. */
export function Diff({ change }: { change: Pick<DiffEntry, 'path' | 'kind' | 'added' | 'removed' | 'diff' | 'diffTruncated'> }) {
  return html`<div class="diff" data-testid="diff" data-path=${change.path}>
    <div class="diff-head">
      <span class=${`badge change-${change.kind}`}>${change.kind}</span>
      <code>${change.path}</code>
      <span class="add">+${change.added}</span> <span class="del">−${change.removed}</span>
    </div>
    <pre class="diff-body">${diffLines(change.diff).map((line) => html`<div class=${`dl dl-${line.kind}`}>${line.text || ' '}</div>`)}</pre>
    ${change.diffTruncated ? html`<p class="muted">The diff was cut at its size limit.</p>` : null}
  </div>`;
}

export function Json({ value }: { value: unknown }) {
  return html`<pre class="text json">${JSON.stringify(value, null, 2)}</pre>`;
}
