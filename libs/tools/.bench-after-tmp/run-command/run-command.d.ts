import { z } from 'zod';
import { ToolContext } from '../context';
import { ToolOutcome } from '../outcome';
export declare const RunCommandArgs: z.ZodObject<{
    command: z.ZodString;
    args: z.ZodDefault<z.ZodArray<z.ZodString>>;
    timeoutMs: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict>;
export type RunCommandArgs = z.infer<typeof RunCommandArgs>;
/** Runs one allow-listed executable in the project root, in a sandbox, without a shell; stdout and stderr interleaved and capped. */
export declare function runCommandTool(args: RunCommandArgs, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=run-command.d.ts.map