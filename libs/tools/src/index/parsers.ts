import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { IndexLanguage } from '@stagecraft/contracts';
import type { ParseSource, SyntaxNode } from '@stagecraft/index';
import { Language, Parser } from 'web-tree-sitter';

/** Where each language's prebuilt grammar lives: npm packages, loaded as WASM (no native build). */
function grammarPath(language: IndexLanguage): string {
  if (language === 'kotlin')
    return join(dirname(require.resolve('@tree-sitter-grammars/tree-sitter-kotlin/package.json')), 'tree-sitter-kotlin.wasm');
  return join(dirname(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out', `tree-sitter-${language}.wasm`);
}

/**
 * Grammars whose lexer is one WebAssembly function too large for V8's optimizing compiler. V8 runs
 * WebAssembly on its baseline code first and recompiles a function once it has run a little: for
 * Swift's lexer (435 KB of code) that recompilation took 4–15 s and 3.4 GB (Kotlin's: 1.5 s,
 * 600 MB), on a background thread that the process waits for before it exits, after parsing one
 * 3-line file. Their parses therefore run with tier-up off; the baseline code parses fast enough
 * (docs/decisions/0054).
 */
const BASELINE_ONLY: ReadonlySet<string> = new Set<IndexLanguage>(['swift', 'kotlin']);

/**
 * Tier-up off and on again. V8 reads `--wasm-tier-up-filter` (tier up only the function with this
 * index; -1: all) when a function's budget runs out, on this thread, so it holds for what runs
 * between the two calls: the parse of one file. -1 is V8's default.
 */
const tierUp = (on: boolean) => setFlagsFromString(on ? '--wasm-tier-up-filter=-1' : '--wasm-tier-up-filter=-2');

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

/** Parses with tier-up off for the grammars that cannot afford it. */
function parseWith(parser: Parser, language: string, source: string) {
  if (!BASELINE_ONLY.has(language)) return parser.parse(source);
  tierUp(false);
  try {
    return parser.parse(source);
  } finally {
    tierUp(true);
  }
}

/**
 * Loads the grammars of the given languages (each once per process: only those asked for, since
 * each costs its load) and returns a synchronous parse over them; other languages parse to null.
 */
export async function loadParsers(languages: Iterable<IndexLanguage>): Promise<ParseSource> {
  const loaded = new Map<string, Parser>();
  for (const language of new Set(languages)) if (language !== 'other') loaded.set(language, await parserFor(language));
  return <T>(language: string, source: string, use: (root: SyntaxNode) => T): T | null => {
    const parser = loaded.get(language);
    const tree = parser ? parseWith(parser, language, source) : null;
    if (!tree) return null;
    try {
      return use(tree.rootNode as unknown as SyntaxNode);
    } finally {
      // Trees live in the WASM heap, not the JS one: they are freed by hand.
      tree.delete();
    }
  };
}
