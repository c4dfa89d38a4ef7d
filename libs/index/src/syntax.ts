/** The part of a tree-sitter node the extractors read; web-tree-sitter's `Node` fits it. */
export interface SyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly startPosition: { row: number; column: number };
  readonly endPosition: { row: number; column: number };
  readonly children: readonly (SyntaxNode | null)[];
  readonly namedChildren: readonly (SyntaxNode | null)[];
  readonly previousNamedSibling: SyntaxNode | null;
  readonly parent: SyntaxNode | null;
  childForFieldName(field: string): SyntaxNode | null;
}

/**
 * Parses a file's text and hands its syntax tree's root to `use`, then frees the tree: the shell loads
 * the grammars, this lib only walks. Null when the language has no grammar.
 */
export type ParseSource = <T>(language: string, source: string, use: (root: SyntaxNode) => T) => T | null;
