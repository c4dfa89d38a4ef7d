import type { EntryPoint, IndexLanguage, IndexedSymbol } from '@stagecraft/contracts';
import { MANIFESTS, serviceEntryOf } from './entry-points';
import { languageOf } from './language';
import { extractSymbols, mainEntryPoints } from './symbols';
import type { ParseSource } from './syntax';

export interface SourceIndex {
  language: IndexLanguage;
  symbols: IndexedSymbol[];
  entryPoints: EntryPoint[];
}

/** What the index records of one file's text: its language, definitions and entry points. */
export function indexSource(path: string, source: string, parse: ParseSource): SourceIndex {
  const language = languageOf(path);
  const base = path.slice(path.lastIndexOf('/') + 1);
  const entryPoints: EntryPoint[] = MANIFESTS.get(base)?.(source) ?? [];
  let symbols: IndexedSymbol[] = [];
  if (language !== 'other') {
    const found = parse(language, source, (root) => {
      const definitions = extractSymbols(root, language);
      return { definitions, mains: mainEntryPoints(root, language, definitions) };
    });
    if (found) {
      symbols = found.definitions;
      entryPoints.push(...found.mains);
    }
    const service = serviceEntryOf(path);
    if (service) entryPoints.push(service);
  }
  return { language, symbols, entryPoints };
}
