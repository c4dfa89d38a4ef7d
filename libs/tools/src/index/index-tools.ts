import { z } from 'zod';
import { IndexLanguage, SymbolKind } from '@stagecraft/contracts';
import { IndexView, applyIndexUpdate, emptyIndex, findSymbol, listEntryPoints, searchIndex } from '@stagecraft/index';
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

export async function searchIndexTool(args: SearchIndexArgs, context: ToolContext): Promise<ToolOutcome> {
  const view = await viewOf(context);
  const hits = searchIndex(view, args.query, args.maxResults);
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
