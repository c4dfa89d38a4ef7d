import { z } from 'zod';
import { EventUnion, eventFamily } from './family';

export const IndexLanguage = z.enum(['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'kotlin', 'swift', 'other']);
export type IndexLanguage = z.infer<typeof IndexLanguage>;

export const SymbolKind = z.enum(['function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type', 'module']);
export type SymbolKind = z.infer<typeof SymbolKind>;

/** One definition: 1-based inclusive line range, the enclosing definition's name, the first line of its doc comment. */
export const IndexedSymbol = z.object({
  name: z.string().min(1),
  kind: SymbolKind,
  startLine: z.number().int().min(1),
  endLine: z.number().int().min(1),
  container: z.string().optional(),
  doc: z.string().optional(),
});
export type IndexedSymbol = z.infer<typeof IndexedSymbol>;

export const EntryPointKind = z.enum(['bin', 'main', 'script', 'main_function', 'service_entry']);
export type EntryPointKind = z.infer<typeof EntryPointKind>;

/** Where a program starts: a manifest's bin/main/script, a `main` function, or a service entry file. */
export const EntryPoint = z.object({
  kind: EntryPointKind,
  name: z.string().min(1),
  /** The command of a script, the target file of a bin or main. */
  detail: z.string().optional(),
  line: z.number().int().min(1).optional(),
});
export type EntryPoint = z.infer<typeof EntryPoint>;

/** One indexed file, by its `/`-separated path relative to the project root. */
export const IndexedFile = z.object({
  path: z.string().min(1),
  language: IndexLanguage,
  size: z.number().int().min(0),
  /** sha256 of the content: a re-index of an unchanged file records nothing. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  symbols: z.array(IndexedSymbol),
  entryPoints: z.array(EntryPoint),
});
export type IndexedFile = z.infer<typeof IndexedFile>;

/** `index-<project>`: the codebase index of one project root, written by the tool service alone (docs/decisions/0022). */
export const indexEventSchemas = {
  IndexUpdated: z.object({
    root: z.string().min(1),
    /** Files added or changed since the last update, in path order. */
    files: z.array(IndexedFile),
    /** Files gone (deleted, or now ignored), in path order. */
    removed: z.array(z.string().min(1)),
  }),
};

export const indexEvents = eventFamily(indexEventSchemas);
export type IndexEvent = EventUnion<typeof indexEventSchemas>;
