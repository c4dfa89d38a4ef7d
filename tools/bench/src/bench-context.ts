import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatMessage, CompactionSettings, EventData, streams } from '@stagecraft/contracts';
import { DEFAULT_COMPACTION, estimateTokens } from '@stagecraft/run';
import { ModelGateway } from '@stagecraft/model-gateway';
import { QA_PASS_REPORT, macroReasoning, microReasoning } from '@stagecraft/testing';
import { runToEnd, startEmbeddedServices } from './embedded-services';

/**
 * `npm run bench:context`: prompt tokens per request over a scripted 60-round tool loop and ten more
 * turns of the same conversation, with the default compaction and without any. Tokens are what each
 * request's `ModelRequested.tokenEstimate` recorded (system prompt, messages and tools, about four
 * characters a token); the history part is what came after the system prompt.
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const TURNS = 10;
/** A source file of about 200 lines: what `read_file` typically brings back. */
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 8_000);

function sourceFile(n: number): string {
  const lines = [`file ${n} of ${ROUNDS}`, `// module ${n}: parsing, validation and formatting helpers`];
  for (let i = 0; lines.join('\n').length < FILE_BYTES; i++)
    lines.push(
      i % 5 === 0
        ? `export function helper${n}_${i}(input: string): string {`
        : i % 5 === 4
          ? '}'
          : `  const v${i} = input.trim().slice(${i});`,
    );
  return lines.join('\n');
}

interface Sent {
  runId: string;
  stage: string;
  history: number;
}

/** The scripted agent in process: reads f1 … f60 one per step (finding its place from the last tool result), then answers. */
function readingAgent(sent: Sent[]): ModelGateway {
  return {
    model: 'scripted-in-process',
    async complete(meta, messages: ChatMessage[]) {
      sent.push({ runId: meta.runId, stage: meta.stage, history: estimateTokens(messages.slice(1)) });
      const last = [...messages].reverse().find((m) => m.role === 'tool');
      const read = Number(/^file (\d+) of/.exec(last?.content ?? '')?.[1] ?? 0);
      const reply = (content: string, toolCalls: { id: string; name: string; arguments: string }[] = []) => ({
        content,
        toolCalls,
        latencyMs: 0,
        finishReason: toolCalls.length ? 'tool_calls' : 'stop',
        model: 'scripted-in-process',
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      });
      switch (meta.stage) {
        case 'warmup':
          return reply(`${macroReasoning()}\nI will read the modules one by one.`);
        case 'act':
        case 'tool_followup':
          if (meta.runId === 'tour' && read < ROUNDS)
            return reply(microReasoning(`read f${read + 1}.ts`), [
              { id: `call_${read + 1}`, name: 'read_file', arguments: JSON.stringify({ path: `f${read + 1}.ts` }) },
            ]);
          return reply(
            `${microReasoning('answer', 'DONE')}\n${meta.runId === 'tour' ? `Read all ${ROUNDS} modules.` : `About ${meta.runId}: the helpers are pure string functions.`}`,
          );
        case 'delivery_check':
          return reply(`${microReasoning('hand over', 'DONE')}\nDone.`);
        default:
          return reply(`${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}`);
      }
    },
  };
}

interface Request {
  runId: string;
  stage: string;
  tokens: number;
  history: number;
}

async function conversation(
  dir: string,
  compaction: Partial<CompactionSettings> | 'off',
): Promise<{ requests: Request[]; compactions: EventData<'HistoryCompacted'>[] }> {
  const sent: Sent[] = [];
  const gateway = readingAgent(sent);
  const services = await startEmbeddedServices({
    gateway,
    storePath: join(dir, `${compaction === 'off' ? 'off' : 'on'}.db`),
    requestTimeoutMs: 60_000,
    conversation: { compaction, limits: { maxToolIterations: ROUNDS + 5 } },
  });
  const project = join(dir, 'project');
  const runIds = ['tour', ...Array.from({ length: TURNS }, (_, i) => `turn-${i + 1}`)];
  try {
    let conversationId: string | undefined;
    for (const runId of runIds) {
      const message =
        runId === 'tour' ? `Read the ${ROUNDS} modules and tell me what they do.` : `Question about ${runId}: what does it change?`;
      const request = { runId, conversationId, message, userMode: 'agent', reasoningEnabled: true, projectRoot: project } as const;
      const ran = await runToEnd(services, request);
      conversationId = ran.conversationId;
      if (ran.end !== 'RunCompleted') throw new Error(`${runId} ended with ${ran.end}`);
    }
    const store = services.store;
    const requests: Request[] = [];
    const compactions: EventData<'HistoryCompacted'>[] = [];
    for (const runId of runIds) {
      const history = sent.filter((s) => s.runId === runId && s.stage !== 'qa_review');
      let i = 0;
      for (const e of await store.readStream(streams.run(runId))) {
        if (e.type === 'HistoryCompacted') compactions.push(e.data as EventData<'HistoryCompacted'>);
        if (e.type !== 'ModelRequested') continue;
        const data = e.data as EventData<'ModelRequested'>;
        requests.push({ runId, stage: data.stage, tokens: data.tokenEstimate, history: history[i++]?.history ?? 0 });
      }
    }
    return { requests, compactions };
  } finally {
    await services.close();
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const fmt = (n: number) => n.toLocaleString('en-US');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-bench-context-'));
  try {
    mkdirSync(join(dir, 'project'));
    for (let n = 1; n <= ROUNDS; n++) writeFileSync(join(dir, 'project', `f${n}.ts`), sourceFile(n));
    const settings = DEFAULT_COMPACTION;
    const on = await conversation(dir, {});
    const off = await conversation(dir, 'off');
    console.log(
      `bench:context — ${ROUNDS}-round tool loop (files of ${fmt(FILE_BYTES)} bytes), then ${TURNS} more turns; embedded, SQLite`,
    );
    console.log(
      `compaction: ${settings.method}, trigger at ${fmt(settings.maxMessages)} messages or ${fmt(settings.maxTokens)} tokens of history, keeping ~${fmt(settings.keepRecentTokens)} tokens verbatim`,
    );
    console.log('');
    console.log('request  run      stage           tokens (compacted)  tokens (uncompacted)');
    const rows = Math.max(on.requests.length, off.requests.length);
    for (let i = 0; i < rows; i++) {
      const a = on.requests[i];
      const b = off.requests[i];
      if (i % 5 !== 0 && i !== rows - 1) continue;
      const r = a ?? b;
      console.log(
        `${String(i + 1).padStart(7)}  ${r.runId.padEnd(8)} ${r.stage.padEnd(15)} ${String(a ? fmt(a.tokens) : '-').padStart(18)}  ${String(b ? fmt(b.tokens) : '-').padStart(20)}`,
      );
    }
    const tour = (rs: Request[]) => rs.filter((r) => r.runId === 'tour');
    const report = (name: string, rs: Request[]) => {
      const t = tour(rs);
      console.log(
        `${name.padEnd(12)} requests ${rs.length}; ${ROUNDS}-round run: ${fmt(sum(t.map((r) => r.tokens)))} tokens sent, largest prompt ${fmt(Math.max(...t.map((r) => r.tokens)))} (history part ${fmt(Math.max(...t.map((r) => r.history)))}); all ${rs.length} requests: ${fmt(sum(rs.map((r) => r.tokens)))} tokens`,
      );
    };
    console.log('');
    report('compacted', on.requests);
    report('uncompacted', off.requests);
    const ratio = sum(tour(on.requests).map((r) => r.tokens)) / sum(tour(off.requests).map((r) => r.tokens));
    const largestHistory = Math.max(...tour(on.requests).map((r) => r.history));
    console.log(
      `compactions: ${on.compactions.length} in the runs (methods: ${[...new Set(on.compactions.map((c) => c.method))].join(', ')})`,
    );
    console.log(
      `tokens sent over the ${ROUNDS}-round run, compacted / uncompacted: ${ratio.toFixed(3)} (target ≤ 0.333: ${ratio <= 1 / 3 ? 'met' : 'missed'})`,
    );
    console.log(
      `largest history part of a compacted request: ${fmt(largestHistory)} tokens against the budget of ${fmt(settings.maxTokens)} (${largestHistory <= settings.maxTokens ? 'under' : 'over'})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
