import { z } from 'zod';
import { ToolContext } from './context';
import { ToolOutcome } from './outcome';
export declare const SearchCodeArgs: z.ZodObject<{
    query: z.ZodString;
    path: z.ZodDefault<z.ZodString>;
    regex: z.ZodDefault<z.ZodBoolean>;
    maxResults: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict>;
export type SearchCodeArgs = z.infer<typeof SearchCodeArgs>;
/** How much one search may read and for how long; past either it stops and says where. */
export interface SearchBudget {
    bytes: number;
    ms: number;
}
/**
 * Linear-time matching bounds each line, not a whole tree: a search over a large monorepo could
 * still hold the service for seconds, so it has a budget and hands the event loop back every few ms.
 */
export declare const SEARCH_BUDGET: SearchBudget;
/** A line-by-line search in pure Node: `path:line: text`, files in sorted order, binaries and large files skipped. */
export declare function searchCodeTool(args: SearchCodeArgs, context: ToolContext, budget?: SearchBudget): Promise<ToolOutcome>;
//# sourceMappingURL=search-code.d.ts.map