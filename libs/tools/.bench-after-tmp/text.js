"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.byteLength = void 0;
exports.looksBinary = looksBinary;
exports.takeBytes = takeBytes;
exports.splitLines = splitLines;
/** A NUL byte in the first 8 KB is how git and grep tell a binary file from text; so do the tools. */
function looksBinary(bytes) {
    return bytes.subarray(0, 8192).includes(0);
}
const byteLength = (text) => Buffer.byteLength(text, 'utf8');
exports.byteLength = byteLength;
/** The longest prefix of `text` within `maxBytes` of UTF-8, never splitting a character. */
function takeBytes(text, maxBytes) {
    if ((0, exports.byteLength)(text) <= maxBytes)
        return text;
    const cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
    return cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut;
}
/** Splits on LF and drops each line's CR, so CRLF files compare and patch like LF ones. */
function splitLines(text) {
    const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    if (lines.length > 0 && lines[lines.length - 1] === '')
        lines.pop();
    return lines;
}
//# sourceMappingURL=text.js.map