/** Never indexed or searched, whatever `.gitignore` says: dependencies, version control, build output. */
export declare const ALWAYS_SKIPPED: ReadonlySet<string>;
/** Decides whether a path of the tree is ignored by the `.gitignore` files on its way (nested ones too). */
export declare class GitIgnore {
    private readonly root;
    private readonly cache;
    /** `root` is the real path of the project root. */
    constructor(root: string);
    private rulesOf;
    /** `relative` is `/`-separated; folders are checked with a trailing `/`. */
    ignores(relative: string, isDirectory: boolean): Promise<boolean>;
}
/**
 * Every file of the tree that `.gitignore` keeps, `/`-separated and sorted. `root` is the real path of
 * the project root; each folder is opened through its parent's descriptor, so symlinks are never
 * followed, not even one swapped in while the tree is walked.
 */
export declare function listProjectFiles(root: string, gitignore?: GitIgnore, under?: string): Promise<string[]>;
//# sourceMappingURL=scan.d.ts.map