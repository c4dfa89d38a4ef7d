import { z } from 'zod';
import { ToolContext } from './context';
import { ToolOutcome } from './outcome';
export declare const ReadFileArgs: z.ZodObject<{
    path: z.ZodString;
    startLine: z.ZodOptional<z.ZodNumber>;
    endLine: z.ZodOptional<z.ZodNumber>;
}, z.core.$strict>;
export type ReadFileArgs = z.infer<typeof ReadFileArgs>;
/**
 * The text of the regular file at `absolute` (a real path inside the root), or null when nothing is
 * there; anything else is the failure that says what to use instead. Read through a handle of the file
 * itself, so what was checked is what is read.
 */
export declare function readTextInsideRoot(root: string, absolute: string, shown: string, tool: string): string | null;
/** A regular text file inside the root, or the failure that says what to use instead. */
export declare function openTextFile(context: ToolContext, path: string, tool: string): Promise<{
    absolute: string;
    shown: string;
    text: string;
}>;
export declare function readFileTool(args: ReadFileArgs, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=read-file.d.ts.map