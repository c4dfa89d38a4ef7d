"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ApplyPatchArgs = void 0;
exports.applyPatchTool = applyPatchTool;
const zod_1 = require("zod");
const outcome_1 = require("../outcome");
const read_file_1 = require("../read-file");
const pinned_1 = require("../sandbox/pinned");
const resolve_inside_root_1 = require("../sandbox/resolve-inside-root");
const apply_hunks_1 = require("./apply-hunks");
const parse_patch_1 = require("./parse-patch");
exports.ApplyPatchArgs = zod_1.z.strictObject({
    patch: zod_1.z.string().min(1).describe("a unified diff ('---'/'+++' headers, '@@' hunks); use '--- /dev/null' to create a file"),
});
function currentContent(context, pending, absolute) {
    const planned = pending.get(absolute);
    if (planned)
        return planned.content;
    return (0, read_file_1.readTextInsideRoot)(context.root, absolute, (0, resolve_inside_root_1.displayPath)(context.root, absolute), 'apply_patch');
}
async function plan(context, pending, file) {
    // Both sides are written (an edit rewrites its file, a rename deletes its source), so both must be writable.
    const source = file.oldPath === null ? null : await (0, resolve_inside_root_1.resolveWritableInsideRoot)(context.root, file.oldPath);
    const target = file.newPath === null ? null : await (0, resolve_inside_root_1.resolveWritableInsideRoot)(context.root, file.newPath);
    const shown = (0, resolve_inside_root_1.displayPath)(context.root, (source ?? target));
    let original = null;
    if (source === null) {
        if (currentContent(context, pending, target) !== null) {
            throw new outcome_1.ToolFailureError({
                kind: 'ALREADY_EXISTS',
                problem: `the patch creates '${shown}' (--- /dev/null) but it already exists; nothing was written`,
                retry: `read_file '${shown}' and send a hunk against its current content, or write_file it whole`,
            });
        }
    }
    else {
        original = currentContent(context, pending, source);
        if (original === null) {
            throw new outcome_1.ToolFailureError({
                kind: 'NOT_FOUND',
                problem: `the patch edits '${shown}', which does not exist; nothing was written`,
                retry: "check the path with list_dir; to create a new file, use '--- /dev/null' as its old side",
            });
        }
    }
    const next = (0, apply_hunks_1.applyHunks)(original, file, shown);
    if (source !== null && source !== target)
        pending.set(source, { shown, content: null });
    if (target !== null)
        pending.set(target, { shown: (0, resolve_inside_root_1.displayPath)(context.root, target), content: next });
    const kind = source === null ? 'create' : target === null ? 'delete' : 'edit';
    return `${kind} ${target === null ? shown : (0, resolve_inside_root_1.displayPath)(context.root, target)} (${file.hunks.length} hunk${file.hunks.length === 1 ? '' : 's'})`;
}
/** All or nothing: every hunk of every file is checked in memory before the first byte is written. */
async function applyPatchTool(args, context) {
    const files = (0, parse_patch_1.parsePatch)(args.patch);
    const pending = new Map();
    const summary = [];
    for (const file of files) {
        summary.push(await plan(context, pending, file));
        context.progress(`checked ${summary[summary.length - 1]}`);
    }
    // Writes before deletions, so a failing write never leaves a renamed file in neither place.
    for (const [absolute, { shown, content }] of pending)
        if (content !== null)
            (0, pinned_1.writeInsideRoot)(context.root, absolute, shown, content);
    for (const [absolute, { shown, content }] of pending)
        if (content === null)
            (0, pinned_1.removeInsideRoot)(context.root, absolute, shown);
    context.progress(`applied the patch to ${pending.size} file${pending.size === 1 ? '' : 's'}`);
    return (0, outcome_1.succeeded)(`applied:\n${summary.map((s) => `  ${s}`).join('\n')}`);
}
//# sourceMappingURL=apply-patch.js.map