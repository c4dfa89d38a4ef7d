import { z } from 'zod';
import { MemoryRecallReply, MemoryReflectReply, MemoryRetainReply, MemoryTier } from '@stagecraft/contracts';
import { ToolContext } from './context';
import { ToolOutcome } from './outcome';
/**
 * How the memory tools reach the memory service: the tool service answers them with `memory.recall`,
 * `memory.retain` and `memory.reflect` in the project's scope, filling in the source run and an id
 * derived from the call (so a retried call retains once).
 */
export interface MemoryPort {
    /** The project's memory scope, derived from its root. */
    scope: string;
    recall(request: {
        query: string;
        tier?: MemoryTier;
        limit: number;
    }): Promise<MemoryRecallReply>;
    retain(request: {
        tier: MemoryTier;
        content: string;
        tags: string[];
    }): Promise<MemoryRetainReply>;
    reflect(request: {
        query: string;
    }): Promise<MemoryReflectReply>;
}
export declare const MemoryRecallArgs: z.ZodObject<{
    query: z.ZodString;
    tier: z.ZodOptional<z.ZodEnum<{
        project: "project";
        architecture: "architecture";
        run_outcome: "run_outcome";
    }>>;
    limit: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict>;
export declare const MemoryRetainArgs: z.ZodObject<{
    content: z.ZodString;
    tier: z.ZodDefault<z.ZodEnum<{
        project: "project";
        architecture: "architecture";
    }>>;
    tags: z.ZodDefault<z.ZodArray<z.ZodString>>;
}, z.core.$strict>;
export declare const MemoryReflectArgs: z.ZodObject<{
    query: z.ZodString;
}, z.core.$strict>;
export declare function memoryRecallTool(args: z.output<typeof MemoryRecallArgs>, context: ToolContext): Promise<ToolOutcome>;
export declare function memoryRetainTool(args: z.output<typeof MemoryRetainArgs>, context: ToolContext): Promise<ToolOutcome>;
export declare function memoryReflectTool(args: z.output<typeof MemoryReflectArgs>, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=memory-tools.d.ts.map