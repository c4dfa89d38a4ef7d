"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.lineMatcher = lineMatcher;
const re2js_1 = require("re2js");
const outcome_1 = require("./outcome");
/**
 * What RE2 leaves out because it cannot be matched in linear time, and how a model can say the same
 * thing without it. Looked for in the query only after RE2 refused it, so a `\1` inside a character
 * class or an escaped `\(?=` never gets here.
 */
const UNSUPPORTED = [
    { name: 'a backreference (\\1, \\k<name>)', syntax: /\\[1-9]|\\k</, instead: 'match the repeated text explicitly, or search for one occurrence and read the file' },
    { name: 'a lookahead ((?=…), (?!…))', syntax: /\(\?[=!]/, instead: 'match the following text as part of the pattern, or drop the condition' },
    { name: 'a lookbehind ((?<=…), (?<!…))', syntax: /\(\?<[=!]/, instead: 'match the preceding text as part of the pattern, or drop the condition' },
    { name: 'an atomic group or possessive quantifier ((?>…), a++)', syntax: /\(\?>|[+*?}]\+/, instead: 'use an ordinary group or quantifier' },
];
/**
 * A line matcher for search_code. Text is matched as text; a regular expression runs on RE2JS, a
 * pure-JavaScript port of RE2, whose time grows linearly with the line: no pattern can backtrack
 * exponentially and hold the service's event loop (`(a+)+$` took seconds per 28-character line with
 * the built-in engine). Its syntax is RE2's, a subset of JavaScript's plus `(?i)` style flags.
 */
function lineMatcher(query, regex) {
    if (!regex)
        return (line) => line.includes(query);
    let pattern;
    try {
        pattern = re2js_1.RE2JS.compile(query);
    }
    catch (error) {
        const unsupported = UNSUPPORTED.find((u) => u.syntax.test(query));
        throw new outcome_1.ToolFailureError({
            kind: 'INVALID_PATTERN',
            problem: unsupported
                ? `'${query}' uses ${unsupported.name}, which search_code does not support: its regular expressions (RE2 syntax) always run in linear time`
                : `'${query}' is not a valid regular expression (RE2 syntax): ${error.message}`,
            retry: unsupported
                ? `${unsupported.instead}; or retry with regex=false to search for a literal part of it`
                : 'fix the pattern (RE2 syntax: no backreferences or lookaround; (?i) for case-insensitive), or retry with regex=false to search for the literal text',
        });
    }
    return (line) => pattern.test(line);
}
//# sourceMappingURL=search-pattern.js.map