"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SEARCH_BUDGET = exports.SearchCodeArgs = void 0;
exports.searchCodeTool = searchCodeTool;
const promises_1 = require("node:fs/promises");
const node_path_1 = require("node:path");
const promises_2 = require("node:timers/promises");
const zod_1 = require("zod");
const context_1 = require("./context");
const outcome_1 = require("./outcome");
const resolve_inside_root_1 = require("./sandbox/resolve-inside-root");
const search_pattern_1 = require("./search-pattern");
const text_1 = require("./text");
const scan_1 = require("./index/scan");
exports.SearchCodeArgs = zod_1.z.strictObject({
    query: zod_1.z
        .string()
        .min(1)
        .describe('text to find, or with regex=true a regular expression in RE2 syntax (no backreferences or lookaround; (?i) ignores case)'),
    path: zod_1.z.string().default('.').describe('file or directory to search, relative to the project root'),
    regex: zod_1.z.boolean().default(false),
    maxResults: zod_1.z.number().int().min(1).max(1000).default(100),
});
/**
 * Linear-time matching bounds each line, not a whole tree: a search over a large monorepo could
 * still hold the service for seconds, so it has a budget and hands the event loop back every few ms.
 */
exports.SEARCH_BUDGET = { bytes: 256 * 1024 * 1024, ms: 15_000 };
const SLICE_MS = 20;
/** A named file is searched as asked; a directory's files are those `.gitignore` keeps (dependencies and build output never). */
async function filesUnder(root, absolute) {
    const info = await (0, promises_1.stat)(absolute).catch(() => null);
    if (!info)
        return [];
    if (info.isFile())
        return [absolute];
    const under = (0, node_path_1.relative)(root, absolute).split(node_path_1.sep).join('/');
    return (await (0, scan_1.listProjectFiles)(root, new scan_1.GitIgnore(root), under)).map((file) => (0, node_path_1.join)(root, file));
}
/** A line-by-line search in pure Node: `path:line: text`, files in sorted order, binaries and large files skipped. */
async function searchCodeTool(args, context, budget = exports.SEARCH_BUDGET) {
    const matches = (0, search_pattern_1.lineMatcher)(args.query, args.regex);
    const absolute = await (0, resolve_inside_root_1.resolveInsideRoot)(context.root, args.path);
    const shown = (0, resolve_inside_root_1.displayPath)(context.root, absolute);
    const files = await filesUnder(context.root, absolute);
    if (files.length === 0 && !(await (0, promises_1.stat)(absolute).catch(() => null))) {
        throw new outcome_1.ToolFailureError({
            kind: 'NOT_FOUND',
            problem: `'${shown}' does not exist`,
            retry: "retry with path '.' or a directory that list_dir shows",
        });
    }
    const results = [];
    const started = performance.now();
    let sliceStarted = started;
    let searched = 0;
    let bytesRead = 0;
    let cutShort = null;
    search: for (const file of files) {
        const size = (await (0, promises_1.stat)(file).catch(() => null))?.size ?? Number.POSITIVE_INFINITY;
        if (size > context_1.LIMITS.searchFileMaxSize)
            continue;
        if (bytesRead + size > budget.bytes) {
            cutShort = `read budget of ${budget.bytes} bytes spent`;
            break;
        }
        const bytes = await (0, promises_1.readFile)(file).catch(() => null);
        bytesRead += bytes?.length ?? 0;
        if (!bytes || (0, text_1.looksBinary)(bytes))
            continue;
        searched += 1;
        const lines = (0, text_1.splitLines)(bytes.toString('utf8'));
        for (let i = 0; i < lines.length; i += 1) {
            if ((i & 255) === 0 && performance.now() - sliceStarted > SLICE_MS) {
                if (performance.now() - started > budget.ms) {
                    cutShort = `time budget of ${budget.ms} ms spent in ${(0, resolve_inside_root_1.displayPath)(context.root, file)}`;
                    break search;
                }
                await (0, promises_2.setImmediate)();
                sliceStarted = performance.now();
            }
            if (!matches(lines[i]))
                continue;
            if (results.length === args.maxResults) {
                context.progress(`stopped after ${results.length} matches in ${searched} files`);
                return (0, outcome_1.succeeded)(`${results.join('\n')}\n[truncated at maxResults=${args.maxResults}; more matches exist: narrow the query or path, or raise maxResults]`, true);
            }
            results.push(`${(0, resolve_inside_root_1.displayPath)(context.root, file)}:${i + 1}: ${lines[i].trim().slice(0, context_1.LIMITS.searchLineChars)}`);
        }
    }
    context.progress(`searched ${searched} files, ${results.length} matches${cutShort ? ` (cut short: ${cutShort})` : ''}`);
    const found = results.length > 0 ? results.join('\n') : `no matches for ${JSON.stringify(args.query)} in '${shown}' (${searched} files searched)`;
    if (cutShort === null)
        return (0, outcome_1.succeeded)(found);
    return (0, outcome_1.succeeded)(`${found}\n[search cut short after ${searched} of ${files.length} files (${cutShort}): the rest was not searched; narrow the path or the query]`, true);
}
//# sourceMappingURL=search-code.js.map