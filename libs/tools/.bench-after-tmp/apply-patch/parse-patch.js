"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.parsePatch = parsePatch;
const outcome_1 = require("../outcome");
const FORMAT_HELP = "send a unified diff: '--- a/<path>' and '+++ b/<path>' lines, then '@@ -start,count +start,count @@' hunks whose lines start with ' ', '-' or '+'";
const invalid = (problem) => new outcome_1.ToolFailureError({ kind: 'PATCH_INVALID', problem, retry: FORMAT_HELP });
/** Header paths lose their timestamp, quotes and git's `a/`/`b/` prefix. */
function headerPath(raw, prefix) {
    let path = raw.split('\t')[0].trim();
    if (path.startsWith('"') && path.endsWith('"') && path.length > 1)
        path = path.slice(1, -1);
    if (path === '/dev/null')
        return null;
    return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
/**
 * Reads a hunk leniently, because hand-written diffs often miscount: the header's line counts only
 * help decide whether a `--- x` / `+++ y` pair is the next file header or removed and added lines.
 */
function readHunk(lines, start) {
    const header = lines[start];
    const m = HUNK_HEADER.exec(header);
    if (!m)
        throw invalid(`malformed hunk header '${header}'`);
    const oldCount = m[2] === undefined ? 1 : Number(m[2]);
    const newCount = m[4] === undefined ? 1 : Number(m[4]);
    const hunk = {
        header: m[0],
        oldStart: Number(m[1]),
        oldCount,
        lines: [],
        oldEndsWithoutNewline: false,
        newEndsWithoutNewline: false,
    };
    let seenOld = 0;
    let seenNew = 0;
    let i = start + 1;
    for (; i < lines.length; i += 1) {
        const line = lines[i];
        const counted = seenOld >= oldCount && seenNew >= newCount;
        if (line.startsWith('@@') || line.startsWith('diff '))
            break;
        const fileHeader = line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ');
        if (fileHeader && (counted || lines[i + 2]?.startsWith('@@')))
            break;
        if (line.startsWith('\\')) {
            const previous = hunk.lines[hunk.lines.length - 1]?.op;
            if (previous !== '+')
                hunk.oldEndsWithoutNewline = true;
            if (previous !== '-')
                hunk.newEndsWithoutNewline = true;
            continue;
        }
        // An empty line is a context line whose single space was stripped by an editor.
        const op = line === '' ? ' ' : line[0];
        if (op !== ' ' && op !== '-' && op !== '+')
            break;
        hunk.lines.push({ op, text: line.slice(1) });
        if (op !== '+')
            seenOld += 1;
        if (op !== '-')
            seenNew += 1;
    }
    // Blank lines trailing the patch text are padding, not context.
    while (hunk.lines.length > 0 &&
        hunk.lines[hunk.lines.length - 1].op === ' ' &&
        lines[i - 1] === '' &&
        hunk.lines[hunk.lines.length - 1].text === '') {
        hunk.lines.pop();
        i -= 1;
    }
    if (!hunk.lines.some((l) => l.op !== ' '))
        throw invalid(`hunk '${header}' changes nothing`);
    return { hunk, next: i };
}
/** Every file of a unified diff with its hunks; anything between files (git's `diff`/`index` lines, prose) is skipped. */
function parsePatch(text) {
    const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    const files = [];
    let i = 0;
    while (i < lines.length) {
        const line = lines[i];
        if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
            const file = { oldPath: headerPath(line.slice(4), 'a/'), newPath: headerPath(lines[i + 1].slice(4), 'b/'), hunks: [] };
            if (file.oldPath === null && file.newPath === null)
                throw invalid('a file header has /dev/null on both sides');
            files.push(file);
            i += 2;
        }
        else if (line.startsWith('@@')) {
            const file = files[files.length - 1];
            if (!file)
                throw invalid(`hunk '${line}' comes before any '---'/'+++' file header`);
            const { hunk, next } = readHunk(lines, i);
            file.hunks.push(hunk);
            i = next;
        }
        else {
            i += 1;
        }
    }
    if (files.length === 0)
        throw invalid('no file headers found');
    const empty = files.find((f) => f.hunks.length === 0);
    if (empty)
        throw invalid(`'${empty.newPath ?? empty.oldPath}' has a file header but no hunks`);
    return files;
}
//# sourceMappingURL=parse-patch.js.map