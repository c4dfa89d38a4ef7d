import { z } from 'zod';
import { ToolContext } from './context';
import { ToolOutcome } from './outcome';
export declare const WriteFileArgs: z.ZodObject<{
    path: z.ZodString;
    content: z.ZodString;
}, z.core.$strict>;
export type WriteFileArgs = z.infer<typeof WriteFileArgs>;
export declare function writeFileTool(args: WriteFileArgs, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=write-file.d.ts.map