import { Stats } from 'node:fs';
/** `name` inside the directory a descriptor holds. */
export declare const at: (directory: number, name: string) => string;
/** The object a descriptor holds, to list or reopen it. */
export declare const held: (fd: number) => string;
/** Calls `use` with `fd`, closing it afterwards whatever happens. */
export declare function using<T>(fd: number, use: (fd: number) => T): T;
/**
 * The subdirectory `name` of `directory`, created first when `create` is set; undefined when it does
 * not exist (or is not a directory) and nothing is to be created. A symlink there is refused.
 */
export declare function openSubdirectory(directory: number, name: string, shown: string, create?: boolean): number | undefined;
/** The real root, opened by its name: the root itself is the one path a model cannot move. */
export declare const openRoot: (realRoot: string) => number;
/**
 * Calls `use` with a descriptor of the directory that holds `absolute` and the last name of the path
 * (`.` for the root itself), or with `undefined` when that directory does not exist and `create` is
 * not set. Missing directories are created, one by one, when it is.
 */
export declare function inParent<T>(realRoot: string, absolute: string, shown: string, create: boolean, use: (directory: number | undefined, name: string) => T): T;
/** What a path is, held so it cannot be swapped while it is used: `undefined` when it does not exist. */
export interface Held {
    fd: number;
    info: Stats;
}
/**
 * Calls `use` with a handle (O_PATH) of `absolute` and its metadata, or `undefined` when it does not
 * exist. Opening it has no side effect (a FIFO or device is not opened for reading). A symlink where the
 * real path had none is refused.
 */
export declare function withHandle<T>(realRoot: string, absolute: string, shown: string, use: (found: Held | undefined) => T): T;
/** At most `limit` bytes of the regular file a handle holds, read from that very file. */
export declare function readHeld(handle: number, limit: number): Buffer;
/**
 * Writes through a temporary file in the same directory and renames it into place, so a reader never
 * sees half a file and a crash leaves the old content; an existing file keeps its permission bits.
 * `check` sees what is there now (`undefined` when nothing) and throws to refuse. Answers whether a
 * file was replaced. Synchronous: a model writes source files, and a thread-pool round trip per step
 * costs more than the write.
 */
export declare function writeInsideRoot(realRoot: string, absolute: string, shown: string, content: string | Uint8Array, check?: (existing: Stats | undefined) => void): boolean;
/** Removes the file at `absolute` if it is there; a directory or a missing file is left alone. */
export declare function removeInsideRoot(realRoot: string, absolute: string, shown: string): void;
//# sourceMappingURL=pinned.d.ts.map