"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ReadFileArgs = void 0;
exports.readTextInsideRoot = readTextInsideRoot;
exports.openTextFile = openTextFile;
exports.readFileTool = readFileTool;
const zod_1 = require("zod");
const context_1 = require("./context");
const outcome_1 = require("./outcome");
const pinned_1 = require("./sandbox/pinned");
const resolve_inside_root_1 = require("./sandbox/resolve-inside-root");
const text_1 = require("./text");
exports.ReadFileArgs = zod_1.z
    .strictObject({
    path: zod_1.z.string().min(1).describe('file path relative to the project root'),
    startLine: zod_1.z.number().int().min(1).optional().describe('first line to return, 1-based'),
    endLine: zod_1.z.number().int().min(1).optional().describe('last line to return, inclusive'),
})
    .refine((a) => a.startLine === undefined || a.endLine === undefined || a.endLine >= a.startLine, {
    message: 'endLine must not be before startLine',
    path: ['endLine'],
});
const notFound = (shown) => new outcome_1.ToolFailureError({
    kind: 'NOT_FOUND',
    problem: `'${shown}' does not exist`,
    retry: 'find the right path with list_dir or search_code, then retry with it',
});
/**
 * The text of the regular file at `absolute` (a real path inside the root), or null when nothing is
 * there; anything else is the failure that says what to use instead. Read through a handle of the file
 * itself, so what was checked is what is read.
 */
function readTextInsideRoot(root, absolute, shown, tool) {
    return (0, pinned_1.withHandle)(root, absolute, shown, (found) => {
        if (!found)
            return null;
        const { fd, info } = found;
        if (info.isDirectory())
            throw new outcome_1.ToolFailureError({
                kind: 'NOT_A_FILE',
                problem: `'${shown}' is a directory`,
                retry: `use list_dir on '${shown}' to see its files, then ${tool} one of them`,
            });
        if (!info.isFile())
            throw new outcome_1.ToolFailureError({
                kind: 'NOT_A_FILE',
                problem: `'${shown}' is not a regular file`,
                retry: 'retry with the path of a regular file',
            });
        if (info.size > context_1.LIMITS.readFileMaxSize) {
            throw new outcome_1.ToolFailureError({
                kind: 'TOO_LARGE',
                problem: `'${shown}' is ${info.size} bytes, over the ${context_1.LIMITS.readFileMaxSize}-byte limit`,
                retry: 'use search_code to find the part you need',
            });
        }
        // At most readFileMaxSize bytes: reading synchronously is cheaper than a thread-pool round trip.
        const bytes = (0, pinned_1.readHeld)(fd, context_1.LIMITS.readFileMaxSize);
        if ((0, text_1.looksBinary)(bytes))
            throw new outcome_1.ToolFailureError({
                kind: 'BINARY_FILE',
                problem: `'${shown}' is a binary file`,
                retry: 'read a text file instead; binary content cannot be shown',
            });
        return bytes.toString('utf8');
    });
}
/** A regular text file inside the root, or the failure that says what to use instead. */
async function openTextFile(context, path, tool) {
    const absolute = await (0, resolve_inside_root_1.resolveInsideRoot)(context.root, path);
    const shown = (0, resolve_inside_root_1.displayPath)(context.root, absolute);
    const text = readTextInsideRoot(context.root, absolute, shown, tool);
    if (text === null)
        throw notFound(shown);
    return { absolute, shown, text };
}
async function readFileTool(args, context) {
    const { shown, text } = await openTextFile(context, args.path, 'read_file');
    const lines = (0, text_1.splitLines)(text);
    const first = args.startLine ?? 1;
    const last = Math.min(args.endLine ?? lines.length, lines.length);
    if (first > Math.max(lines.length, 1)) {
        throw new outcome_1.ToolFailureError({
            kind: 'OUT_OF_RANGE',
            problem: `'${shown}' has ${lines.length} lines; startLine ${first} is past the end`,
            retry: `retry with startLine between 1 and ${Math.max(lines.length, 1)}`,
        });
    }
    const kept = [];
    let bytes = 0;
    for (let n = first; n <= last; n += 1) {
        const size = (0, text_1.byteLength)(lines[n - 1]) + 1;
        if (bytes + size > context_1.LIMITS.readFileBytes) {
            // One line longer than the whole limit (minified code) is cut rather than dropped.
            if (kept.length === 0)
                return (0, outcome_1.succeeded)(`${(0, text_1.takeBytes)(lines[n - 1], context_1.LIMITS.readFileBytes)}\n[truncated: line ${n} alone is over the ${context_1.LIMITS.readFileBytes}-byte output limit; use search_code to find what you need in it]`, true);
            break;
        }
        kept.push(lines[n - 1]);
        bytes += size;
    }
    const shownLast = first + kept.length - 1;
    context.progress(`read ${shown} lines ${first}-${shownLast} of ${lines.length}`);
    const whole = args.startLine === undefined && args.endLine === undefined && kept.length === lines.length;
    const body = whole ? text : kept.join('\n');
    if (shownLast >= last)
        return (0, outcome_1.succeeded)(body);
    const note = `\n[truncated: lines ${first}-${shownLast} of ${lines.length} shown (output limit ${context_1.LIMITS.readFileBytes} bytes); retry read_file with startLine=${shownLast + 1} to read on]`;
    return (0, outcome_1.succeeded)(body + note, true);
}
//# sourceMappingURL=read-file.js.map