import type { IndexLanguage } from '@stagecraft/contracts';
import type { ParseSource } from '@stagecraft/index';
/** Loads the grammars of the given languages once per process, and returns a synchronous parse over them. */
export declare function loadParsers(languages: readonly IndexLanguage[]): Promise<ParseSource>;
//# sourceMappingURL=parsers.d.ts.map