import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import OpenAI from 'openai';

/**
 * The anchor the run bench compares against: the same agent loop as a LangGraph.js `StateGraph`.
 * Nodes warmup → act → tools → tool_followup (looping through tools while the model calls any) →
 * delivery_check → qa_review, over an append-reducer message state, checkpointed by `SqliteSaver` with
 * durability `sync` (every step's checkpoint written before the next step starts), the `openai` client
 * against the same scripted server (which reads the stage from `x-stagecraft-stage`, as it does for
 * Stagecraft's requests), and the two tools run for real in the project folder.
 */

type Message =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

const State = Annotation.Root({
  messages: Annotation<Message[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
  /** The stage whose model call came last: where `tools` returns to, and what the router reads. */
  stage: Annotation<string>({ reducer: (_, next) => next, default: () => 'warmup' }),
});
type StateOf = typeof State.State;

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the project',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file of the project',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
];

const PROMPTS: Record<string, string> = {
  warmup: 'You are a coding agent. Plan the work before acting.',
  act: 'You are a coding agent. Use the tools to reach the goal.',
  tool_followup: 'You are a coding agent. Continue from the tool results.',
  delivery_check: 'Check the answer is complete. Say DONE or NEEDS_WORK.',
  qa_review: 'Review the work and report as JSON.',
};

/** Where one run's time went outside the graph: the model calls (HTTP client included) and the tools' own work. */
export interface LoopTimes {
  modelMs: number;
  toolMs: number;
  /** Model-calling nodes run: the stages, as Stagecraft counts `StageEntered`. */
  stages: number;
}

export interface LangGraphLoop {
  /** One run on a new thread; resolves with its wall time and where it went. */
  run(message: string): Promise<LoopTimes & { wallMs: number; ok: boolean }>;
  close(): void;
}

function inside(root: string, path: string): string {
  const full = resolve(root, path);
  if (full !== root && !full.startsWith(root + sep)) throw new Error(`path outside the project: ${path}`);
  return full;
}

export function langGraphLoop(options: { baseURL: string; project: string; checkpoints: string }): LangGraphLoop {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: 'test', maxRetries: 0 });
  const saver = SqliteSaver.fromConnString(options.checkpoints);
  const times = new Map<string, LoopTimes>();
  const timesOf = (thread: string) => times.get(thread)!;

  const callModel = (stage: string, tools: boolean) => async (state: StateOf, config: { configurable?: { thread_id?: string } }) => {
    const t = timesOf(config.configurable!.thread_id!);
    const started = performance.now();
    const completion = await client.chat.completions.create(
      {
        model: 'scripted',
        messages: [{ role: 'system', content: PROMPTS[stage] }, ...state.messages] as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
        ...(tools ? { tools: TOOLS } : {}),
      },
      { headers: { 'x-stagecraft-stage': stage } },
    );
    t.modelMs += performance.now() - started;
    t.stages += 1;
    const reply = completion.choices[0].message;
    const message: Message = {
      role: 'assistant',
      content: reply.content ?? '',
      ...(reply.tool_calls?.length ? { tool_calls: reply.tool_calls } : {}),
    };
    return { messages: [message], stage };
  };

  const runTools = async (state: StateOf, config: { configurable?: { thread_id?: string } }) => {
    const t = timesOf(config.configurable!.thread_id!);
    const last = state.messages[state.messages.length - 1];
    const calls = last.role === 'assistant' ? (last.tool_calls ?? []) : [];
    const results: Message[] = [];
    for (const call of calls) {
      if (call.type !== 'function') continue;
      const started = performance.now();
      let content: string;
      try {
        const args = JSON.parse(call.function.arguments) as { path: string; content?: string };
        const path = inside(options.project, args.path);
        if (call.function.name === 'read_file') content = await readFile(path, 'utf8');
        else if (call.function.name === 'write_file') {
          await writeFile(path, args.content ?? '');
          content = `wrote ${args.path}`;
        } else content = `unknown tool ${call.function.name}`;
      } catch (error) {
        content = `error: ${(error as Error).message}`;
      }
      t.toolMs += performance.now() - started;
      results.push({ role: 'tool', content, tool_call_id: call.id });
    }
    return { messages: results };
  };

  const calledTools = (state: StateOf) => {
    const last = state.messages[state.messages.length - 1];
    return last.role === 'assistant' && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : 'delivery_check';
  };

  const graph = new StateGraph(State)
    .addNode('warmup', callModel('warmup', false))
    .addNode('act', callModel('act', true))
    .addNode('tools', runTools)
    .addNode('tool_followup', callModel('tool_followup', true))
    .addNode('delivery_check', callModel('delivery_check', false))
    .addNode('qa_review', callModel('qa_review', false))
    .addEdge(START, 'warmup')
    .addEdge('warmup', 'act')
    .addConditionalEdges('act', calledTools, ['tools', 'delivery_check'])
    .addEdge('tools', 'tool_followup')
    .addConditionalEdges('tool_followup', calledTools, ['tools', 'delivery_check'])
    .addEdge('delivery_check', 'qa_review')
    .addEdge('qa_review', END)
    .compile({ checkpointer: saver });

  return {
    async run(message) {
      const thread = randomUUID();
      times.set(thread, { modelMs: 0, toolMs: 0, stages: 0 });
      const started = performance.now();
      const final = await graph.invoke(
        { messages: [{ role: 'user', content: message }] },
        { configurable: { thread_id: thread }, durability: 'sync', recursionLimit: 50 },
      );
      const wallMs = performance.now() - started;
      const t = timesOf(thread);
      times.delete(thread);
      const last = final.messages[final.messages.length - 1];
      return { ...t, wallMs, ok: last.role === 'assistant' && last.content.includes('"verdict"') };
    },
    close() {
      saver.db.close();
    },
  };
}

/** A project folder as the run bench uses: a README to read, NOTES.md to write. */
export const LANGGRAPH_CHECKPOINTS = (dir: string) => join(dir, `langgraph-${randomUUID().slice(0, 8)}.db`);
