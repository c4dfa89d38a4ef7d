/**
 * A line matcher for search_code. Text is matched as text; a regular expression runs on RE2JS, a
 * pure-JavaScript port of RE2, whose time grows linearly with the line: no pattern can backtrack
 * exponentially and hold the service's event loop (`(a+)+$` took seconds per 28-character line with
 * the built-in engine). Its syntax is RE2's, a subset of JavaScript's plus `(?i)` style flags.
 */
export declare function lineMatcher(query: string, regex: boolean): (line: string) => boolean;
//# sourceMappingURL=search-pattern.d.ts.map