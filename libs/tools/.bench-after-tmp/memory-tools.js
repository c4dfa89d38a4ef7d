"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MemoryReflectArgs = exports.MemoryRetainArgs = exports.MemoryRecallArgs = void 0;
exports.memoryRecallTool = memoryRecallTool;
exports.memoryRetainTool = memoryRetainTool;
exports.memoryReflectTool = memoryReflectTool;
const zod_1 = require("zod");
const contracts_1 = require("@stagecraft/contracts");
const outcome_1 = require("./outcome");
exports.MemoryRecallArgs = zod_1.z
    .object({
    query: zod_1.z.string().trim().min(1).max(2_000).describe('what to look for: words of the task, file names, decisions'),
    tier: contracts_1.MemoryTier.optional().describe('only this tier: project facts, architecture decisions or recent run outcomes'),
    limit: zod_1.z.number().int().min(1).max(20).default(5),
})
    .strict();
exports.MemoryRetainArgs = zod_1.z
    .object({
    content: zod_1.z.string().trim().min(1).max(2_000).describe('one concise, self-contained fact or decision'),
    tier: zod_1.z
        .enum(['project', 'architecture'])
        .default('project')
        .describe('project: paths, build commands, conventions; architecture: a stable design decision'),
    tags: zod_1.z.array(zod_1.z.string().min(1).max(64)).max(16).default([]),
})
    .strict();
exports.MemoryReflectArgs = zod_1.z
    .object({ query: zod_1.z.string().trim().min(1).max(2_000).describe('the topic whose memories to connect') })
    .strict();
const noMemory = () => (0, outcome_1.failed)({
    kind: 'INTERNAL',
    problem: 'no memory service is connected to this tool service',
    retry: 'go on without memory tools',
});
const oneLine = (text) => text.replace(/\s+/g, ' ').trim();
async function memoryRecallTool(args, context) {
    const memory = context.memory;
    if (!memory)
        return noMemory();
    const { memories } = await memory.recall(args);
    if (memories.length === 0)
        return (0, outcome_1.succeeded)(`No memory in scope ${memory.scope} matches "${oneLine(args.query)}".`);
    const lines = memories.map((m) => {
        const source = m.source?.runId ? `, from run ${m.source.runId}` : '';
        return `- [${m.memoryId}] (${m.tier}, score ${m.score}${source}) ${oneLine(m.content)}`;
    });
    return (0, outcome_1.succeeded)([`${memories.length} of the memories in scope ${memory.scope}:`, ...lines].join('\n'));
}
async function memoryRetainTool(args, context) {
    const memory = context.memory;
    if (!memory)
        return noMemory();
    const reply = await memory.retain(args);
    return (0, outcome_1.succeeded)(reply.retained
        ? `Retained memory ${reply.memoryId} (${args.tier}) in scope ${memory.scope}. It is recalled in later runs once this run ends DONE.`
        : `Memory ${reply.memoryId} was already retained in scope ${memory.scope}.`);
}
async function memoryReflectTool(args, context) {
    const memory = context.memory;
    if (!memory)
        return noMemory();
    return (0, outcome_1.succeeded)((await memory.reflect(args)).reflection);
}
//# sourceMappingURL=memory-tools.js.map