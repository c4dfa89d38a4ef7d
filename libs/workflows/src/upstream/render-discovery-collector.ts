import { DiscoveryCollectorResult, Recommendation } from '@stagecraft/contracts';
import { consolidationLines } from './render-consolidation';
import { MAX_FILES, MAX_LINKS } from './render-discovery';
import { bullets, capped, firstLine } from './text';

export const MAX_RECOMMENDATIONS = 12;
export const MAX_QUERIES = 8;
const MAX_TEXT_CHARS = 4_000;

const RANK: Record<Recommendation['priority'], number> = { critical: 0, high: 1, medium: 2, low: 3 };
const byPriority = (a: Recommendation, b: Recommendation): number =>
  RANK[a.priority] - RANK[b.priority] || (a.recommendationId < b.recommendationId ? -1 : a.recommendationId > b.recommendationId ? 1 : 0);

const recommendationLine = (r: Recommendation): string =>
  `[${r.priority}] ${r.recommendationId}: ${r.title}: ${firstLine(r.description)}${r.relatedFilePaths.length > 0 ? ` (files: ${r.relatedFilePaths.join(', ')})` : ''}`;

const counted = (title: string, shown: number, total: number): string => (total > shown ? `${title} (${shown} of ${total}):` : `${title}:`);

/** What planning and tickets build on: the curation first, then the code map, recommendations and findings per query. */
export function renderDiscoveryCollector(result: DiscoveryCollectorResult): string {
  const { discoveryCuration: curation, unifiedCodeMap: map } = result;
  const lines = [`### Discovery collector result ${result.resultId}`, '', ...consolidationLines(result)];
  const list = (title: string, items: readonly string[], total = items.length) =>
    items.length > 0 && lines.push('', counted(title, items.length, total), bullets(items));

  lines.push('', 'Discovery for planning and tickets:', '', capped(curation.summary, MAX_TEXT_CHARS));
  list('Key files', curation.keyFiles.slice(0, MAX_FILES), curation.keyFiles.length);
  list('Constraints', curation.constraints);

  lines.push('', 'Code map:', '', capped(map.summary, MAX_TEXT_CHARS));
  list(
    'Files',
    map.files.slice(0, MAX_FILES).map((f) => `${f.path}: ${f.role}${f.tags.length > 0 ? ` [${f.tags.join(', ')}]` : ''}`),
    map.files.length,
  );
  list(
    'Links between files',
    map.links.slice(0, MAX_LINKS).map((l) => `${l.sourcePath} ${l.relation} ${l.targetPath}`),
    map.links.length,
  );

  const recommendations = [...result.recommendations].sort(byPriority);
  list('Recommendations', recommendations.slice(0, MAX_RECOMMENDATIONS).map(recommendationLine), recommendations.length);

  const queries = Object.entries(result.querySpecificFindings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  list(
    'Findings per query',
    queries
      .slice(0, MAX_QUERIES)
      .map(
        ([, f]) => `"${f.originalQuery}" (confidence ${f.confidenceScore.toFixed(2)}, ${f.results.length} files): ${firstLine(f.summary)}`,
      ),
    queries.length,
  );
  return lines.join('\n');
}
