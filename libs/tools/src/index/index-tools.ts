import { z } from 'zod';
import { IndexLanguage, SymbolKind } from '@stagecraft/contracts';
import { IndexView, SearchHit, applyIndexUpdate, cosine, emptyIndex, findSymbol, listEntryPoints, searchIndex } from '@stagecraft/index';
import type { ToolContext } from '../context';
import { ToolOutcome, succeeded } from '../outcome';
import { indexProject } from './build';

export const FindSymbolArgs = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(200)
    .describe('the name of a function, class, method, interface, struct, enum or trait; `Type.method` for a method of one type'),
  path: z.string().min(1).optional().describe('only definitions in this file or under this folder'),
  kind: SymbolKind.optional(),
  language: IndexLanguage.optional(),
  maxResults: z.number().int().min(1).max(200).default(20),
});
export type FindSymbolArgs = z.infer<typeof FindSymbolArgs>;

export const ListEntryPointsArgs = z.strictObject({});

export const SearchIndexArgs = z.strictObject({
  query: z.string().min(1).max(500).describe('words to find in symbol names, doc comments and file paths'),
  maxResults: z.number().int().min(1).max(200).default(20),
});
export type SearchIndexArgs = z.infer<typeof SearchIndexArgs>;

/** The index the service keeps for the root; without one (a bare call), the tree is indexed now. */
async function viewOf(context: ToolContext): Promise<IndexView> {
  if (context.index) return context.index();
  return applyIndexUpdate(emptyIndex(), await indexProject(context.root, undefined));
}

export async function findSymbolTool(args: FindSymbolArgs, context: ToolContext): Promise<ToolOutcome> {
  const view = await viewOf(context);
  const matches = findSymbol(view, { name: args.name, kind: args.kind, language: args.language, path: args.path, limit: args.maxResults });
  context.progress(`${matches.length} symbols match in ${view.files.size} indexed files`);
  if (matches.length === 0)
    return succeeded(`no symbol matches ${JSON.stringify(args.name)} (${view.files.size} files indexed); try search_index or search_code`);
  return succeeded(
    matches
      .map(
        (m) =>
          `${m.path}:${m.startLine}-${m.endLine}: ${m.kind} ${m.container ? `${m.container}.` : ''}${m.name} [${m.language}${m.match === 'exact' ? '' : `, ${m.match}`}]${m.doc ? ` — ${m.doc}` : ''}`,
      )
      .join('\n'),
  );
}

export async function listEntryPointsTool(_args: z.infer<typeof ListEntryPointsArgs>, context: ToolContext): Promise<ToolOutcome> {
  const entries = listEntryPoints(await viewOf(context));
  if (entries.length === 0)
    return succeeded('no entry points found (no package.json bin/main/scripts, main functions or service entry files)');
  return succeeded(
    entries.map((e) => `${e.kind} ${e.name}${e.detail ? ` → ${e.detail}` : ''} (${e.path}${e.line ? `:${e.line}` : ''})`).join('\n'),
  );
}

/** How many lexical candidates, matching any query word, a ranking by meaning chooses from. */
const SEMANTIC_CANDIDATES = 100;

const textOf = (hit: SearchHit) =>
  hit.symbol ? `${hit.symbol.kind} ${hit.symbol.name} ${hit.symbol.doc ?? ''} in ${hit.path}` : `file ${hit.path}`;
const keyOf = (hit: SearchHit) => `${hit.path}:${hit.symbol?.startLine ?? 0}:${hit.symbol?.name ?? ''}`;

/**
 * The hybrid rank: the lexical hits (every word) and the candidates matching any word, ranked again by
 * the cosine of their embedding with the query's; the two ranks are fused (reciprocal rank, k = 60).
 */
export async function hybridSearch(
  view: IndexView,
  query: string,
  limit: number,
  embed: (texts: string[]) => Promise<number[][]>,
): Promise<SearchHit[]> {
  const lexical = searchIndex(view, query, SEMANTIC_CANDIDATES);
  const seen = new Set(lexical.map(keyOf));
  const candidates = [...lexical, ...searchIndex(view, query, SEMANTIC_CANDIDATES, 'any').filter((h) => !seen.has(keyOf(h)))];
  if (candidates.length === 0) return [];
  const [queryVector, ...vectors] = await embed([query, ...candidates.map(textOf)]);
  const bySimilarity = candidates.map((hit, i) => ({ hit, similarity: cosine(queryVector, vectors[i] ?? []) }));
  const semanticRank = new Map([...bySimilarity].sort((a, b) => b.similarity - a.similarity).map(({ hit }, rank) => [keyOf(hit), rank]));
  const lexicalRank = new Map(lexical.map((hit, rank) => [keyOf(hit), rank]));
  const fused = (hit: SearchHit) => {
    const l = lexicalRank.get(keyOf(hit));
    return 1 / (60 + (semanticRank.get(keyOf(hit)) ?? candidates.length)) + (l === undefined ? 0 : 1 / (60 + l));
  };
  return candidates
    .map((hit, order) => ({ hit, score: fused(hit), order }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ hit }) => hit);
}

async function searchHits(view: IndexView, args: SearchIndexArgs, context: ToolContext): Promise<SearchHit[]> {
  if (!context.embed) return searchIndex(view, args.query, args.maxResults);
  try {
    return await hybridSearch(view, args.query, args.maxResults, context.embed);
  } catch (error) {
    context.progress(`ranking by meaning failed (${(error as Error).message}); ranking by words alone`);
    return searchIndex(view, args.query, args.maxResults);
  }
}

export async function searchIndexTool(args: SearchIndexArgs, context: ToolContext): Promise<ToolOutcome> {
  const view = await viewOf(context);
  const hits = await searchHits(view, args, context);
  if (hits.length === 0) return succeeded(`nothing in the index matches ${JSON.stringify(args.query)} (${view.files.size} files indexed)`);
  return succeeded(
    hits
      .map((h) =>
        h.symbol
          ? `${h.path}:${h.symbol.startLine}-${h.symbol.endLine}: ${h.symbol.kind} ${h.symbol.name}${h.symbol.doc ? ` — ${h.symbol.doc}` : ''}`
          : `${h.path}: file`,
      )
      .join('\n'),
  );
}
