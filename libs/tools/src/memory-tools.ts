import { z } from 'zod';
import { MemoryTier } from '@stagecraft/contracts';
import { ToolContext } from './context';
import { ToolOutcome, failed, succeeded } from './outcome';

export const MemoryRecallArgs = z
  .object({
    query: z.string().trim().min(1).max(2_000).describe('what to look for: words of the task, file names, decisions'),
    tier: MemoryTier.optional().describe('only this tier: project facts, architecture decisions or recent run outcomes'),
    limit: z.number().int().min(1).max(20).default(5),
  })
  .strict();

export const MemoryRetainArgs = z
  .object({
    content: z.string().trim().min(1).max(2_000).describe('one concise, self-contained fact or decision'),
    tier: z
      .enum(['project', 'architecture'])
      .default('project')
      .describe('project: paths, build commands, conventions; architecture: a stable design decision'),
    tags: z.array(z.string().min(1).max(64)).max(16).default([]),
  })
  .strict();

export const MemoryReflectArgs = z
  .object({ query: z.string().trim().min(1).max(2_000).describe('the topic whose memories to connect') })
  .strict();

const noMemory = (): ToolOutcome =>
  failed({
    kind: 'INTERNAL',
    problem: 'no memory service is connected to this tool service',
    retry: 'go on without memory tools',
  });

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

export async function memoryRecallTool(args: z.output<typeof MemoryRecallArgs>, context: ToolContext): Promise<ToolOutcome> {
  const memory = context.memory;
  if (!memory) return noMemory();
  const { memories } = await memory.recall(args);
  if (memories.length === 0) return succeeded(`No memory in scope ${memory.scope} matches "${oneLine(args.query)}".`);
  const lines = memories.map((m) => {
    const source = m.source?.runId ? `, from run ${m.source.runId}` : '';
    return `- [${m.memoryId}] (${m.tier}, score ${m.score}${source}) ${oneLine(m.content)}`;
  });
  return succeeded([`${memories.length} of the memories in scope ${memory.scope}:`, ...lines].join('\n'));
}

export async function memoryRetainTool(args: z.output<typeof MemoryRetainArgs>, context: ToolContext): Promise<ToolOutcome> {
  const memory = context.memory;
  if (!memory) return noMemory();
  const reply = await memory.retain(args);
  return succeeded(
    reply.retained
      ? `Retained memory ${reply.memoryId} (${args.tier}) in scope ${memory.scope}. It is recalled in later runs once this run ends DONE.`
      : `Memory ${reply.memoryId} was already retained in scope ${memory.scope}.`,
  );
}

export async function memoryReflectTool(args: z.output<typeof MemoryReflectArgs>, context: ToolContext): Promise<ToolOutcome> {
  const memory = context.memory;
  if (!memory) return noMemory();
  return succeeded((await memory.reflect(args)).reflection);
}
