"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WriteFileArgs = void 0;
exports.writeFileTool = writeFileTool;
const zod_1 = require("zod");
const outcome_1 = require("./outcome");
const pinned_1 = require("./sandbox/pinned");
const resolve_inside_root_1 = require("./sandbox/resolve-inside-root");
const text_1 = require("./text");
exports.WriteFileArgs = zod_1.z.strictObject({
    path: zod_1.z.string().min(1).describe('file path relative to the project root; missing parent directories are created'),
    content: zod_1.z.string().describe('the complete new content of the file'),
});
async function writeFileTool(args, context) {
    const absolute = await (0, resolve_inside_root_1.resolveWritableInsideRoot)(context.root, args.path);
    const shown = (0, resolve_inside_root_1.displayPath)(context.root, absolute);
    const replaced = (0, pinned_1.writeInsideRoot)(context.root, absolute, shown, args.content, (existing) => {
        if (existing && !existing.isFile()) {
            throw new outcome_1.ToolFailureError({
                kind: 'NOT_A_FILE',
                problem: `'${shown}' exists and is not a regular file`,
                retry: 'choose a file path; write_file never replaces a directory',
            });
        }
    });
    context.progress(`wrote ${shown}`);
    return (0, outcome_1.succeeded)(`wrote ${(0, text_1.byteLength)(args.content)} bytes to ${shown} (${replaced ? 'replaced' : 'created'})`);
}
//# sourceMappingURL=write-file.js.map