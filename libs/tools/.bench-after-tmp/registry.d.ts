import { z } from 'zod';
import { ToolName } from '@stagecraft/contracts';
import { ToolContext } from './context';
import { ToolOutcome } from './outcome';
interface ToolDefinition<S extends z.ZodType> {
    description: string;
    args: S;
    run(args: z.output<S>, context: ToolContext): Promise<ToolOutcome>;
}
/** One entry per tool name in the contracts; the mapped type makes a missing one a compile error. */
export declare const TOOLS: {
    [N in ToolName]: ToolDefinition<z.ZodType>;
};
export interface ToolSpec {
    name: ToolName;
    description: string;
    /** JSON Schema of the arguments, as a model's function-calling interface expects it. */
    parameters: Record<string, unknown>;
}
/** The same names always give the same (frozen) list, so callers can cache by identity. */
export declare function toolSpecs(names?: readonly ToolName[]): ToolSpec[];
/** `read_file {path: string, startLine?: integer, …}`: what a model should have sent. */
export declare function toolSignature(name: ToolName): string;
/**
 * Runs one tool call. It never throws: bad arguments, a path outside the root, a missing file or a
 * failing command all come back as `ok: false` with guidance the model can act on.
 */
export declare function executeTool(name: ToolName, rawArgs: unknown, context: ToolContext): Promise<ToolOutcome>;
export {};
//# sourceMappingURL=registry.d.ts.map