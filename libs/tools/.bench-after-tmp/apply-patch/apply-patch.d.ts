import { z } from 'zod';
import { ToolContext } from '../context';
import { ToolOutcome } from '../outcome';
export declare const ApplyPatchArgs: z.ZodObject<{
    patch: z.ZodString;
}, z.core.$strict>;
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;
/** All or nothing: every hunk of every file is checked in memory before the first byte is written. */
export declare function applyPatchTool(args: ApplyPatchArgs, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=apply-patch.d.ts.map