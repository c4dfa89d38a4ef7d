"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.applyHunks = applyHunks;
const outcome_1 = require("../outcome");
const text_1 = require("../text");
const oldSide = (hunk) => hunk.lines.filter((l) => l.op !== '+').map((l) => l.text);
const exact = (a, b) => a === b;
const ignoringTrailingSpace = (a, b) => a.trimEnd() === b.trimEnd();
function matchesAt(lines, expected, at, same) {
    if (at < 0 || at + expected.length > lines.length)
        return false;
    return expected.every((text, k) => same(lines[at + k], text));
}
/** The match nearest the position the header names, at or after `from`; exact first, then ignoring trailing whitespace. */
function locate(lines, expected, hint, from) {
    for (const same of [exact, ignoringTrailingSpace]) {
        for (let distance = 0; distance <= lines.length; distance += 1) {
            for (const at of distance === 0 ? [hint] : [hint - distance, hint + distance]) {
                if (at >= from && matchesAt(lines, expected, at, same))
                    return at;
            }
        }
    }
    return null;
}
const indent = (lines) => (lines.length > 0 ? lines.map((l) => `    ${l}`).join('\n') : '    (nothing)');
function rejected(path, index, file, hunk, lines, hint) {
    const expected = oldSide(hunk);
    const start = Math.max(0, Math.min(hint, lines.length - 1));
    const found = lines.slice(start, start + Math.max(expected.length, 1));
    return new outcome_1.ToolFailureError({
        kind: 'PATCH_REJECTED',
        problem: `hunk ${index + 1} of ${file.hunks.length} for '${path}' (${hunk.header}) does not apply: its context and '-' lines are not in the file; nothing was written`,
        retry: `read_file '${path}' with startLine/endLine around line ${hunk.oldStart} to get its current text, rebuild this hunk's ' ' and '-' lines from it exactly, and send apply_patch again (or write_file the whole new content)`,
        details: `the hunk expects:\n${indent(expected)}\nthe file has at line ${start + 1}:\n${indent(found)}`,
    });
}
/**
 * The new content of one file after all of its hunks, or a PATCH_REJECTED failure naming the first
 * hunk that does not apply. `original` null means the file is created; a `null` result means deleted.
 * Context lines keep the file's own text, so a whitespace-tolerant match never rewrites them.
 */
function applyHunks(original, file, path) {
    const eol = original?.includes('\r\n') ? '\r\n' : '\n';
    const lines = original === null ? [] : (0, text_1.splitLines)(original);
    let finalNewline = original === null || original === '' || original.endsWith('\n');
    let from = 0;
    let shift = 0;
    file.hunks.forEach((hunk, index) => {
        const expected = oldSide(hunk);
        // `-5,0` means "insert after line 5", every other header names the hunk's first line.
        const hint = (hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1) + shift;
        const at = locate(lines, expected, hint, from);
        if (at === null)
            throw rejected(path, index, file, hunk, lines, hint);
        let cursor = at;
        const replacement = [];
        for (const line of hunk.lines) {
            if (line.op === ' ')
                replacement.push(lines[cursor]);
            if (line.op === '+')
                replacement.push(line.text);
            if (line.op !== '+')
                cursor += 1;
        }
        lines.splice(at, expected.length, ...replacement);
        from = at + replacement.length;
        shift += replacement.length - expected.length;
        if (hunk.newEndsWithoutNewline)
            finalNewline = false;
        else if (hunk.oldEndsWithoutNewline)
            finalNewline = true;
    });
    if (file.newPath === null) {
        if (lines.length > 0) {
            throw new outcome_1.ToolFailureError({
                kind: 'PATCH_REJECTED',
                problem: `the patch deletes '${path}' but leaves ${lines.length} of its lines; nothing was written`,
                retry: `read_file '${path}' and list every one of its lines as '-' lines, or drop '+++ /dev/null' to edit it instead`,
            });
        }
        return null;
    }
    return lines.length === 0 ? '' : lines.join(eol) + (finalNewline ? eol : '');
}
//# sourceMappingURL=apply-hunks.js.map