import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ErrorIssue, issuesFromZod, StagecraftError, WorkflowDefinition } from '@stagecraft/contracts';
import { createWorkflowCatalog, SkippedWorkflow, WorkflowCatalog } from './catalog';

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

/**
 * The lib's only I/O: every `*.json` directly under `dir`. A file that does not check is reported
 * (file and problem) and skipped, so one bad file stops only the workflow it defines.
 */
export function loadWorkflowDirectory(dir: string): WorkflowCatalog {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const definitions: WorkflowDefinition[] = [];
  const skipped: SkippedWorkflow[] = [];
  for (const file of files) {
    const path = join(dir, file);
    try {
      definitions.push(parseWorkflowFile(path, readFileSync(path, 'utf8')));
    } catch (error) {
      skipped.push({ id: file.replace(/\.json$/, ''), file: path, problem: (error as Error).message });
    }
  }
  return createWorkflowCatalog(definitions, skipped);
}
