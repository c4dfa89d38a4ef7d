import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ErrorIssue, issuesFromZod, StagecraftError, WorkflowDefinition } from '@stagecraft/contracts';
import { createWorkflowCatalog, WorkflowCatalog } from './catalog';

const where = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((at, key) => (typeof key === 'number' ? `${at}[${key}]` : `${at}${at ? '.' : ''}${String(key)}`), '') || '(file)';

function invalid(file: string, issues: ErrorIssue[]): StagecraftError {
  const details = issues.map((i) => `${where(i.path)}: ${i.message}`).join('; ');
  return new StagecraftError(
    'VALIDATION',
    `invalid workflow ${file}: ${details}`,
    issues.map((i) => ({ ...i, path: [file, ...i.path] })),
  );
}

/** Pure: one file's text to a checked definition; every message names the file (as given) and the field. */
export function parseWorkflowFile(file: string, text: string): WorkflowDefinition {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(file, [{ path: [], message: `not JSON: ${(error as Error).message}` }]);
  }
  const parsed = WorkflowDefinition.safeParse(json);
  if (!parsed.success) throw invalid(file, issuesFromZod(parsed.error));
  const expectedId = basename(file).replace(/\.json$/, '');
  if (parsed.data.id !== expectedId)
    throw invalid(file, [{ path: ['id'], message: `"${parsed.data.id}" differs from the file name; use "${expectedId}"` }]);
  return parsed.data;
}

/** The lib's only I/O: every `*.json` directly under `dir`, all checked before any is used. */
export function loadWorkflowDirectory(dir: string): WorkflowCatalog {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return createWorkflowCatalog(files.map((file) => parseWorkflowFile(join(dir, file), readFileSync(join(dir, file), 'utf8'))));
}
