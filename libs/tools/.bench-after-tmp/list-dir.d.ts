import { z } from 'zod';
import { ToolContext } from './context';
import { ToolOutcome } from './outcome';
export declare const ListDirArgs: z.ZodObject<{
    path: z.ZodDefault<z.ZodString>;
    depth: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict>;
export type ListDirArgs = z.infer<typeof ListDirArgs>;
/** `ls -F` style: directories end in `/`, symlinks in `@`; node_modules and .git are left out. */
export declare function listDirTool(args: ListDirArgs, context: ToolContext): Promise<ToolOutcome>;
//# sourceMappingURL=list-dir.d.ts.map