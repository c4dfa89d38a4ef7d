/** A NUL byte in the first 8 KB is how git and grep tell a binary file from text; so do the tools. */
export declare function looksBinary(bytes: Uint8Array): boolean;
export declare const byteLength: (text: string) => number;
/** The longest prefix of `text` within `maxBytes` of UTF-8, never splitting a character. */
export declare function takeBytes(text: string, maxBytes: number): string;
/** Splits on LF and drops each line's CR, so CRLF files compare and patch like LF ones. */
export declare function splitLines(text: string): string[];
//# sourceMappingURL=text.d.ts.map