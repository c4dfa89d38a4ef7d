"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TOOLS = void 0;
exports.toolSpecs = toolSpecs;
exports.toolSignature = toolSignature;
exports.executeTool = executeTool;
const promises_1 = require("node:fs/promises");
const zod_1 = require("zod");
const contracts_1 = require("@stagecraft/contracts");
const apply_patch_1 = require("./apply-patch/apply-patch");
const index_tools_1 = require("./index/index-tools");
const list_dir_1 = require("./list-dir");
const memory_tools_1 = require("./memory-tools");
const outcome_1 = require("./outcome");
const read_file_1 = require("./read-file");
const run_command_1 = require("./run-command/run-command");
const search_code_1 = require("./search-code");
const write_file_1 = require("./write-file");
const define = (definition) => definition;
/** One entry per tool name in the contracts; the mapped type makes a missing one a compile error. */
exports.TOOLS = {
    read_file: define({ description: 'Read a text file of the project, whole or a line range.', args: read_file_1.ReadFileArgs, run: read_file_1.readFileTool }),
    list_dir: define({
        description: 'List a directory of the project (directories end in /), up to 3 levels deep.',
        args: list_dir_1.ListDirArgs,
        run: list_dir_1.listDirTool,
    }),
    search_code: define({
        description: 'Find lines containing text (or matching a regular expression) in the project files.',
        args: search_code_1.SearchCodeArgs,
        run: search_code_1.searchCodeTool,
    }),
    find_symbol: define({
        description: 'Find where a function, class, method, interface, struct, enum or trait is defined: file and line range (exact name first, then prefix and fuzzy matches).',
        args: index_tools_1.FindSymbolArgs,
        run: index_tools_1.findSymbolTool,
    }),
    list_entry_points: define({
        description: "List the project's entry points: package bins, mains and scripts, main functions, service entry files.",
        args: index_tools_1.ListEntryPointsArgs,
        run: index_tools_1.listEntryPointsTool,
    }),
    search_index: define({
        description: 'Search the codebase index (symbol names, doc comments, file paths) for words; faster and more precise than search_code for finding definitions.',
        args: index_tools_1.SearchIndexArgs,
        run: index_tools_1.searchIndexTool,
    }),
    write_file: define({ description: 'Create or replace a file with the given content.', args: write_file_1.WriteFileArgs, run: write_file_1.writeFileTool }),
    apply_patch: define({
        description: 'Apply a unified diff to one or more files; nothing is written unless every hunk applies.',
        args: apply_patch_1.ApplyPatchArgs,
        run: apply_patch_1.applyPatchTool,
    }),
    run_command: define({
        description: 'Run an allow-listed executable in the project root, without a shell, with a timeout.',
        args: run_command_1.RunCommandArgs,
        run: run_command_1.runCommandTool,
    }),
    memory_recall: define({
        description: "Recall what this project's long-term memory holds on a topic: project facts, architecture decisions, recent run outcomes.",
        args: memory_tools_1.MemoryRecallArgs,
        run: memory_tools_1.memoryRecallTool,
    }),
    memory_retain: define({
        description: 'Retain one concise fact (tier project) or stable architecture decision (tier architecture) in the project memory.',
        args: memory_tools_1.MemoryRetainArgs,
        run: memory_tools_1.memoryRetainTool,
    }),
    memory_reflect: define({
        description: 'Connect the memories on a topic: links related ones and merges near-duplicates, then lists them.',
        args: memory_tools_1.MemoryReflectArgs,
        run: memory_tools_1.memoryReflectTool,
    }),
};
// Built once: every model request offers tools, and rendering JSON Schema is not free.
const SPECS = Object.fromEntries(contracts_1.ToolName.options.map((name) => [
    name,
    Object.freeze({
        name,
        description: exports.TOOLS[name].description,
        parameters: zod_1.z.toJSONSchema(exports.TOOLS[name].args, { io: 'input' }),
    }),
]));
const LISTS = new Map();
/** The same names always give the same (frozen) list, so callers can cache by identity. */
function toolSpecs(names = contracts_1.ToolName.options) {
    const key = names.join(',');
    let list = LISTS.get(key);
    if (!list) {
        list = Object.freeze(names.map((name) => SPECS[name]));
        LISTS.set(key, list);
    }
    return list;
}
/** `read_file {path: string, startLine?: integer, …}`: what a model should have sent. */
function toolSignature(name) {
    const schema = toolSpecs([name])[0].parameters;
    const fields = Object.entries(schema.properties ?? {}).map(([key, p]) => `${key}${schema.required?.includes(key) ? '' : '?'}: ${p.type ?? 'any'}`);
    return `${name} {${fields.join(', ')}}`;
}
/**
 * Runs one tool call. It never throws: bad arguments, a path outside the root, a missing file or a
 * failing command all come back as `ok: false` with guidance the model can act on.
 */
async function executeTool(name, rawArgs, context) {
    const definition = exports.TOOLS[name];
    const parsed = definition.args.safeParse(rawArgs);
    if (!parsed.success) {
        return (0, outcome_1.failed)({
            kind: 'INVALID_ARGUMENTS',
            problem: `the arguments for ${name} do not fit its schema`,
            retry: `call again with ${toolSignature(name)}`,
            details: (0, contracts_1.issuesFromZod)(parsed.error)
                .map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`)
                .join('\n'),
        });
    }
    try {
        return await definition.run(parsed.data, { ...context, root: await (0, promises_1.realpath)(context.root) });
    }
    catch (error) {
        return (0, outcome_1.outcomeOfError)(error);
    }
}
//# sourceMappingURL=registry.js.map