"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SearchIndexArgs = exports.ListEntryPointsArgs = exports.FindSymbolArgs = void 0;
exports.findSymbolTool = findSymbolTool;
exports.listEntryPointsTool = listEntryPointsTool;
exports.hybridSearch = hybridSearch;
exports.searchIndexTool = searchIndexTool;
const zod_1 = require("zod");
const contracts_1 = require("@stagecraft/contracts");
const index_1 = require("@stagecraft/index");
const outcome_1 = require("../outcome");
const build_1 = require("./build");
exports.FindSymbolArgs = zod_1.z.strictObject({
    name: zod_1.z
        .string()
        .min(1)
        .max(200)
        .describe('the name of a function, class, method, interface, struct, enum or trait; `Type.method` for a method of one type'),
    path: zod_1.z.string().min(1).optional().describe('only definitions in this file or under this folder'),
    kind: contracts_1.SymbolKind.optional(),
    language: contracts_1.IndexLanguage.optional(),
    maxResults: zod_1.z.number().int().min(1).max(200).default(20),
});
exports.ListEntryPointsArgs = zod_1.z.strictObject({});
exports.SearchIndexArgs = zod_1.z.strictObject({
    query: zod_1.z.string().min(1).max(500).describe('words to find in symbol names, doc comments and file paths'),
    maxResults: zod_1.z.number().int().min(1).max(200).default(20),
});
/** The index the service keeps for the root; without one (a bare call), the tree is indexed now. */
async function viewOf(context) {
    if (context.index)
        return context.index();
    return (0, index_1.applyIndexUpdate)((0, index_1.emptyIndex)(), await (0, build_1.indexProject)(context.root, undefined));
}
async function findSymbolTool(args, context) {
    const view = await viewOf(context);
    const matches = (0, index_1.findSymbol)(view, { name: args.name, kind: args.kind, language: args.language, path: args.path, limit: args.maxResults });
    context.progress(`${matches.length} symbols match in ${view.files.size} indexed files`);
    if (matches.length === 0)
        return (0, outcome_1.succeeded)(`no symbol matches ${JSON.stringify(args.name)} (${view.files.size} files indexed); try search_index or search_code`);
    return (0, outcome_1.succeeded)(matches
        .map((m) => `${m.path}:${m.startLine}-${m.endLine}: ${m.kind} ${m.container ? `${m.container}.` : ''}${m.name} [${m.language}${m.match === 'exact' ? '' : `, ${m.match}`}]${m.doc ? ` — ${m.doc}` : ''}`)
        .join('\n'));
}
async function listEntryPointsTool(_args, context) {
    const entries = (0, index_1.listEntryPoints)(await viewOf(context));
    if (entries.length === 0)
        return (0, outcome_1.succeeded)('no entry points found (no package.json bin/main/scripts, main functions or service entry files)');
    return (0, outcome_1.succeeded)(entries.map((e) => `${e.kind} ${e.name}${e.detail ? ` → ${e.detail}` : ''} (${e.path}${e.line ? `:${e.line}` : ''})`).join('\n'));
}
/** How many lexical candidates, matching any query word, a ranking by meaning chooses from. */
const SEMANTIC_CANDIDATES = 100;
const textOf = (hit) => hit.symbol ? `${hit.symbol.kind} ${hit.symbol.name} ${hit.symbol.doc ?? ''} in ${hit.path}` : `file ${hit.path}`;
const keyOf = (hit) => `${hit.path}:${hit.symbol?.startLine ?? 0}:${hit.symbol?.name ?? ''}`;
/**
 * The hybrid rank: the lexical hits (every word) and the candidates matching any word, ranked again by
 * the cosine of their embedding with the query's; the two ranks are fused (reciprocal rank, k = 60).
 */
async function hybridSearch(view, query, limit, embed) {
    const lexical = (0, index_1.searchIndex)(view, query, SEMANTIC_CANDIDATES);
    const seen = new Set(lexical.map(keyOf));
    const candidates = [...lexical, ...(0, index_1.searchIndex)(view, query, SEMANTIC_CANDIDATES, 'any').filter((h) => !seen.has(keyOf(h)))];
    if (candidates.length === 0)
        return [];
    const [queryVector, ...vectors] = await embed([query, ...candidates.map(textOf)]);
    const bySimilarity = candidates.map((hit, i) => ({ hit, similarity: (0, index_1.cosine)(queryVector, vectors[i] ?? []) }));
    const semanticRank = new Map([...bySimilarity].sort((a, b) => b.similarity - a.similarity).map(({ hit }, rank) => [keyOf(hit), rank]));
    const lexicalRank = new Map(lexical.map((hit, rank) => [keyOf(hit), rank]));
    const fused = (hit) => {
        const l = lexicalRank.get(keyOf(hit));
        return 1 / (60 + (semanticRank.get(keyOf(hit)) ?? candidates.length)) + (l === undefined ? 0 : 1 / (60 + l));
    };
    return candidates
        .map((hit, order) => ({ hit, score: fused(hit), order }))
        .sort((a, b) => b.score - a.score || a.order - b.order)
        .slice(0, limit)
        .map(({ hit }) => hit);
}
async function searchHits(view, args, context) {
    if (!context.embed)
        return (0, index_1.searchIndex)(view, args.query, args.maxResults);
    try {
        return await hybridSearch(view, args.query, args.maxResults, context.embed);
    }
    catch (error) {
        context.progress(`ranking by meaning failed (${error.message}); ranking by words alone`);
        return (0, index_1.searchIndex)(view, args.query, args.maxResults);
    }
}
async function searchIndexTool(args, context) {
    const view = await viewOf(context);
    const hits = await searchHits(view, args, context);
    if (hits.length === 0)
        return (0, outcome_1.succeeded)(`nothing in the index matches ${JSON.stringify(args.query)} (${view.files.size} files indexed)`);
    return (0, outcome_1.succeeded)(hits
        .map((h) => h.symbol
        ? `${h.path}:${h.symbol.startLine}-${h.symbol.endLine}: ${h.symbol.kind} ${h.symbol.name}${h.symbol.doc ? ` — ${h.symbol.doc}` : ''}`
        : `${h.path}: file`)
        .join('\n'));
}
//# sourceMappingURL=index-tools.js.map