/**
 * The real path of a caller's project root, checked against the roots this process may serve.
 * `allowedRoots` undefined means any existing absolute directory (the embedded deployment, where the
 * caller is the user's own CLI); a list confines every call to those directories and their subtrees.
 */
export declare function checkProjectRoot(projectRoot: string, allowedRoots?: readonly string[]): Promise<string>;
//# sourceMappingURL=project-root.d.ts.map