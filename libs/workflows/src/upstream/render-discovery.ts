import { DiscoveryReport, FileReference } from '@stagecraft/contracts';
import { bullets, fenced } from './text';

/** Enough files to orient by; the full list stays in the report. */
export const MAX_FILES = 12;
export const MAX_LINKS = 20;

const byRelevance = (a: FileReference, b: FileReference): number =>
  b.relevanceScore - a.relevanceScore || (a.filePath < b.filePath ? -1 : a.filePath > b.filePath ? 1 : a.startLine - b.startLine);

const fileLine = (f: FileReference): string =>
  `${f.filePath}:${f.startLine}-${f.endLine} (relevance ${f.relevanceScore.toFixed(2)})${f.tags.length > 0 ? ` [${f.tags.join(', ')}]` : ''}`;

export function renderDiscovery(report: DiscoveryReport): string {
  const lines = [`### Discovery report ${report.resultId}`, '', report.architectureOverview];
  const list = (title: string, items: readonly string[]) => items.length > 0 && lines.push('', title, bullets(items));
  list('Key patterns:', report.keyPatterns);
  list('Integration points:', report.integrationPoints);
  const files = [...report.fileReferences].sort(byRelevance);
  list(
    files.length > MAX_FILES ? `Most relevant files (${MAX_FILES} of ${files.length}):` : 'Relevant files:',
    files.slice(0, MAX_FILES).map(fileLine),
  );
  list(
    'Links between files:',
    report.crossLinks.slice(0, MAX_LINKS).map((l) => `${l.sourcePath} ${l.relation} ${l.targetPath}`),
  );
  for (const diagram of report.diagrams) lines.push('', `${diagram.title}:`, fenced(diagram.source, diagram.notation));
  return lines.join('\n');
}
