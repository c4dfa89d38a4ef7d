import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import { ToolName, issuesFromZod } from '@stagecraft/contracts';
import { ApplyPatchArgs, applyPatchTool } from './apply-patch/apply-patch';
import { ToolContext } from './context';
import {
  FindSymbolArgs,
  ListEntryPointsArgs,
  SearchIndexArgs,
  findSymbolTool,
  listEntryPointsTool,
  searchIndexTool,
} from './index/index-tools';
import { ListDirArgs, listDirTool } from './list-dir';
import {
  MemoryRecallArgs,
  MemoryReflectArgs,
  MemoryRetainArgs,
  memoryRecallTool,
  memoryReflectTool,
  memoryRetainTool,
} from './memory-tools';
import { ToolOutcome, failed, outcomeOfError } from './outcome';
import { ReadFileArgs, readFileTool } from './read-file';
import { ReadToolOutputArgs, readToolOutputTool } from './read-tool-output';
import { RunCommandArgs, runCommandTool } from './run-command/run-command';
import { SearchCodeArgs, searchCodeTool } from './search-code';
import { WriteFileArgs, writeFileTool } from './write-file';

interface ToolDefinition<S extends z.ZodType> {
  description: string;
  args: S;
  run(args: z.output<S>, context: ToolContext): Promise<ToolOutcome>;
}

const define = <S extends z.ZodType>(definition: ToolDefinition<S>) => definition;

/** One entry per tool name in the contracts; the mapped type makes a missing one a compile error. */
export const TOOLS: { [N in ToolName]: ToolDefinition<z.ZodType> } = {
  read_file: define({ description: 'Read a text file of the project, whole or a line range.', args: ReadFileArgs, run: readFileTool }),
  list_dir: define({
    description: 'List a directory of the project (directories end in /), up to 3 levels deep.',
    args: ListDirArgs,
    run: listDirTool,
  }),
  search_code: define({
    description: 'Find lines containing text (or matching a regular expression) in the project files.',
    args: SearchCodeArgs,
    run: searchCodeTool,
  }),
  find_symbol: define({
    description:
      'Find where a function, class, method, interface, struct, enum or trait is defined: file and line range (exact name first, then prefix and fuzzy matches).',
    args: FindSymbolArgs,
    run: findSymbolTool,
  }),
  list_entry_points: define({
    description: "List the project's entry points: package bins, mains and scripts, main functions, service entry files.",
    args: ListEntryPointsArgs,
    run: listEntryPointsTool,
  }),
  search_index: define({
    description:
      'Search the codebase index (symbol names, doc comments, file paths) for words; faster and more precise than search_code for finding definitions.',
    args: SearchIndexArgs,
    run: searchIndexTool,
  }),
  read_tool_output: define({
    description:
      'Read lines of an earlier tool result of this run that was shown shortened (head and tail): the callId and line range its note gives.',
    args: ReadToolOutputArgs,
    run: readToolOutputTool,
  }),
  write_file: define({ description: 'Create or replace a file with the given content.', args: WriteFileArgs, run: writeFileTool }),
  apply_patch: define({
    description: 'Apply a unified diff to one or more files; nothing is written unless every hunk applies.',
    args: ApplyPatchArgs,
    run: applyPatchTool,
  }),
  run_command: define({
    description: 'Run an allow-listed executable in the project root, without a shell, with a timeout.',
    args: RunCommandArgs,
    run: runCommandTool,
  }),
  memory_recall: define({
    description:
      "Recall what this project's long-term memory holds on a topic: project facts, architecture decisions, recent run outcomes.",
    args: MemoryRecallArgs,
    run: memoryRecallTool,
  }),
  memory_retain: define({
    description: 'Retain one concise fact (tier project) or stable architecture decision (tier architecture) in the project memory.',
    args: MemoryRetainArgs,
    run: memoryRetainTool,
  }),
  memory_reflect: define({
    description: 'Connect the memories on a topic: links related ones and merges near-duplicates, then lists them.',
    args: MemoryReflectArgs,
    run: memoryReflectTool,
  }),
};

export interface ToolSpec {
  name: ToolName;
  description: string;
  /** JSON Schema of the arguments, as a model's function-calling interface expects it. */
  parameters: Record<string, unknown>;
}

// Built once: every model request offers tools, and rendering JSON Schema is not free.
const SPECS = Object.fromEntries(
  ToolName.options.map((name) => [
    name,
    Object.freeze({
      name,
      description: TOOLS[name].description,
      parameters: z.toJSONSchema(TOOLS[name].args, { io: 'input' }) as Record<string, unknown>,
    }),
  ]),
) as Record<ToolName, ToolSpec>;

const LISTS = new Map<string, ToolSpec[]>();

/** The same names always give the same (frozen) list, so callers can cache by identity. */
export function toolSpecs(names: readonly ToolName[] = ToolName.options): ToolSpec[] {
  const key = names.join(',');
  let list = LISTS.get(key);
  if (!list) {
    list = Object.freeze(names.map((name) => SPECS[name])) as ToolSpec[];
    LISTS.set(key, list);
  }
  return list;
}

/** `read_file {path: string, startLine?: integer, …}`: what a model should have sent. */
export function toolSignature(name: ToolName): string {
  const schema = toolSpecs([name])[0].parameters as { properties?: Record<string, { type?: string }>; required?: string[] };
  const fields = Object.entries(schema.properties ?? {}).map(
    ([key, p]) => `${key}${schema.required?.includes(key) ? '' : '?'}: ${p.type ?? 'any'}`,
  );
  return `${name} {${fields.join(', ')}}`;
}

/**
 * Runs one tool call. It never throws: bad arguments, a path outside the root, a missing file or a
 * failing command all come back as `ok: false` with guidance the model can act on.
 */
export async function executeTool(name: ToolName, rawArgs: unknown, context: ToolContext): Promise<ToolOutcome> {
  const definition = TOOLS[name];
  const parsed = definition.args.safeParse(rawArgs);
  if (!parsed.success) {
    return failed({
      kind: 'INVALID_ARGUMENTS',
      problem: `the arguments for ${name} do not fit its schema`,
      retry: `call again with ${toolSignature(name)}`,
      details: issuesFromZod(parsed.error)
        .map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`)
        .join('\n'),
    });
  }
  try {
    return await definition.run(parsed.data, { ...context, root: await realpath(context.root) });
  } catch (error) {
    return outcomeOfError(error);
  }
}
