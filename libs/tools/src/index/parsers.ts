import { dirname, join } from 'node:path';
import type { IndexLanguage } from '@stagecraft/contracts';
import type { ParseSource, SyntaxNode } from '@stagecraft/index';
import { Language, Parser } from 'web-tree-sitter';

/** Where each language's prebuilt grammar lives: npm packages, loaded as WASM (no native build). */
function grammarPath(language: IndexLanguage): string {
  if (language === 'kotlin')
    return join(dirname(require.resolve('@tree-sitter-grammars/tree-sitter-kotlin/package.json')), 'tree-sitter-kotlin.wasm');
  return join(dirname(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out', `tree-sitter-${language}.wasm`);
}

let ready: Promise<void> | undefined;
const parsers = new Map<IndexLanguage, Promise<Parser>>();

async function parserFor(language: IndexLanguage): Promise<Parser> {
  ready ??= Parser.init();
  await ready;
  let parser = parsers.get(language);
  if (!parser) {
    parser = Language.load(grammarPath(language)).then((grammar) => {
      const p = new Parser();
      p.setLanguage(grammar);
      return p;
    });
    parsers.set(language, parser);
  }
  return parser;
}

/** Loads the grammars of the given languages once per process, and returns a synchronous parse over them. */
export async function loadParsers(languages: readonly IndexLanguage[]): Promise<ParseSource> {
  const loaded = new Map<string, Parser>();
  for (const language of languages) if (language !== 'other') loaded.set(language, await parserFor(language));
  return <T>(language: string, source: string, use: (root: SyntaxNode) => T): T | null => {
    const parser = loaded.get(language);
    const tree = parser?.parse(source);
    if (!tree) return null;
    try {
      return use(tree.rootNode as unknown as SyntaxNode);
    } finally {
      // Trees live in the WASM heap, not the JS one: they are freed by hand.
      tree.delete();
    }
  };
}
