import { z } from 'zod';
import { IndexView, SearchHit } from '@stagecraft/index';
import type { ToolContext } from '../context';
import { ToolOutcome } from '../outcome';
export declare const FindSymbolArgs: z.ZodObject<{
    name: z.ZodString;
    path: z.ZodOptional<z.ZodString>;
    kind: z.ZodOptional<z.ZodEnum<{
        function: "function";
        type: "type";
        enum: "enum";
        method: "method";
        class: "class";
        interface: "interface";
        struct: "struct";
        trait: "trait";
        module: "module";
    }>>;
    language: z.ZodOptional<z.ZodEnum<{
        typescript: "typescript";
        tsx: "tsx";
        javascript: "javascript";
        python: "python";
        go: "go";
        rust: "rust";
        java: "java";
        kotlin: "kotlin";
        swift: "swift";
        other: "other";
    }>>;
    maxResults: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict>;
export type FindSymbolArgs = z.infer<typeof FindSymbolArgs>;
export declare const ListEntryPointsArgs: z.ZodObject<{}, z.core.$strict>;
export declare const SearchIndexArgs: z.ZodObject<{
    query: z.ZodString;
    maxResults: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict>;
export type SearchIndexArgs = z.infer<typeof SearchIndexArgs>;
export declare function findSymbolTool(args: FindSymbolArgs, context: ToolContext): Promise<ToolOutcome>;
export declare function listEntryPointsTool(_args: z.infer<typeof ListEntryPointsArgs>, context: ToolContext): Promise<ToolOutcome>;
/**
 * The hybrid rank: the lexical hits (every word) and the candidates matching any word, ranked again by
 * the cosine of their embedding with the query's; the two ranks are fused (reciprocal rank, k = 60).
 */
export declare function hybridSearch(view: IndexView, query: string, limit: number, embed: (texts: string[]) => Promise<number[][]>): Promise<SearchHit[]>;
export declare function searchIndexTool(args: SearchIndexArgs, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=index-tools.d.ts.map