export interface HunkLine {
    op: ' ' | '-' | '+';
    text: string;
}
export interface Hunk {
    header: string;
    oldStart: number;
    oldCount: number;
    lines: HunkLine[];
    /** From `\ No newline at end of file` after an old-side or new-side line. */
    oldEndsWithoutNewline: boolean;
    newEndsWithoutNewline: boolean;
}
/** `null` stands for `/dev/null`: a new file on the old side, a deleted one on the new side. */
export interface FilePatch {
    oldPath: string | null;
    newPath: string | null;
    hunks: Hunk[];
}
/** Every file of a unified diff with its hunks; anything between files (git's `diff`/`index` lines, prose) is skipped. */
export declare function parsePatch(text: string): FilePatch[];
//# sourceMappingURL=parse-patch.d.ts.map