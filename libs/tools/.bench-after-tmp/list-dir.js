"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ListDirArgs = void 0;
exports.listDirTool = listDirTool;
const zod_1 = require("zod");
const context_1 = require("./context");
const outcome_1 = require("./outcome");
const pinned_1 = require("./sandbox/pinned");
const resolve_inside_root_1 = require("./sandbox/resolve-inside-root");
const walk_1 = require("./walk");
exports.ListDirArgs = zod_1.z.strictObject({
    path: zod_1.z.string().default('.').describe('directory relative to the project root'),
    depth: zod_1.z.number().int().min(1).max(3).default(1).describe('how many levels to list (1-3)'),
});
const suffix = { directory: '/', symlink: '@', file: '', other: '' };
/** `ls -F` style: directories end in `/`, symlinks in `@`; node_modules and .git are left out. */
async function listDirTool(args, context) {
    const absolute = await (0, resolve_inside_root_1.resolveInsideRoot)(context.root, args.path);
    const shown = (0, resolve_inside_root_1.displayPath)(context.root, absolute);
    // The directory is held open while it is listed: what was checked is what is listed.
    return (0, pinned_1.withHandle)(context.root, absolute, shown, (found) => {
        if (!found)
            throw new outcome_1.ToolFailureError({
                kind: 'NOT_FOUND',
                problem: `'${shown}' does not exist`,
                retry: "list the parent directory (or '.') to find the right name",
            });
        if (!found.info.isDirectory())
            throw new outcome_1.ToolFailureError({
                kind: 'NOT_A_DIRECTORY',
                problem: `'${shown}' is a file`,
                retry: `use read_file on '${shown}', or list_dir its directory`,
            });
        const lines = [];
        for (const entry of (0, walk_1.walk)(found.fd, args.depth)) {
            if (lines.length === context_1.LIMITS.listDirEntries) {
                context.progress(`listed ${lines.length} entries of ${shown} (limit reached)`);
                return (0, outcome_1.succeeded)(`${lines.join('\n')}\n[truncated after ${lines.length} entries; retry list_dir with a smaller depth or on a subdirectory]`, true);
            }
            lines.push(entry.relative + suffix[entry.kind]);
        }
        context.progress(`listed ${lines.length} entries of ${shown}`);
        return (0, outcome_1.succeeded)(lines.length > 0 ? lines.join('\n') : `[${shown} is empty]`);
    });
}
//# sourceMappingURL=list-dir.js.map