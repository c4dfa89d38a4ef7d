import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryScopeOf, streams } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { cosine } from '@stagecraft/index';
import { projectFactMemoryId, runOutcomeMemoryId, memoryService, commandKind } from '@stagecraft/memory-service';
import { embedderFromEnv } from '@stagecraft/model-gateway';
import {
  MemoriesView,
  ScopeMemories,
  liveMemories,
  memoriesModel,
  rankMemories,
  recallRanking,
  recentOutcomes,
} from '@stagecraft/read-models';
import { startScriptedModelServer } from '@stagecraft/scripted-model';
import { startHost } from '@stagecraft/service-shell';
import { BENCH_NOTES, BENCH_QUESTIONS, BENCH_RUNS, scoreRanking } from './memory-bench';

const K = 3;
const PROJECT = '/bench/web-shop';

/**
 * `npm run bench:memory`: recall@3 of the benchmark's questions (tools/bench/src/memory-bench.ts) for each
 * ranking. The memories are written as the service writes them: run outcomes and project facts by its
 * write policy from stored runs, architecture notes by `memory.retain`. The hybrid row is `memory.recall`
 * itself, with embeddings from `STAGECRAFT_EMBEDDING_MODEL` at `OPENAI_BASE_URL` when set, else from the
 * scripted model server's `/embeddings` (hash vectors that carry no meaning).
 */
async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-bench-memory-'));
  const real = process.env['STAGECRAFT_EMBEDDING_MODEL']?.trim();
  const scripted = real ? undefined : await startScriptedModelServer();
  const env = real
    ? { ...process.env }
    : { STAGECRAFT_EMBEDDING_MODEL: 'scripted-embedding', OPENAI_BASE_URL: scripted!.url, OPENAI_API_KEY: 'unused' };
  const host = await startHost({
    definitions: [memoryService],
    transport: 'inproc',
    store: `sqlite:${join(dir, 'events.db')}`,
    config: { prefix: 'stagecraft', requestTimeoutMs: 30_000, logLevel: 'silent' },
    env,
  });
  try {
    const store = host.ports.store as EventStore;
    const names = await writeMemories(store, (subject, data) => host.ports.requester.request(subject, data));
    const scope = await settledScope(store, names.size);
    const name = (id: string) => names.get(id) ?? id;
    const embedder = embedderFromEnv(env)!;
    const live = liveMemories(scope);
    const memoryVectors = await embedder.embed(live.map((m) => m.content));
    const answers = { lexical: [], recency: [], semantic: [], default: [], hybrid: [] } as Record<string, string[][]>;
    for (const question of BENCH_QUESTIONS) {
      answers['lexical'].push(rankMemories(scope, question.text, { limit: K }).map((m) => name(m.memoryId)));
      answers['recency'].push(recentOutcomes(scope, { limit: K }).map((m) => name(m.memoryId)));
      const [queryVector] = await embedder.embed([question.text]);
      answers['semantic'].push(
        live
          .map((m, i) => ({ id: m.memoryId, score: cosine(queryVector, memoryVectors[i]) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, K)
          .map((m) => name(m.id)),
      );
      answers['default'].push(recallRanking(scope, question.text, { limit: K }).map((m) => name(m.memoryId)));
      const { memories } = await host.ports.requester.request('memory.recall', { projectRoot: PROJECT, query: question.text, limit: K });
      answers['hybrid'].push(memories.map((m) => name(m.memoryId)));
    }
    const kinds = ['recency', 'lexical', 'paraphrase'] as const;
    const count = (kind: string) => BENCH_QUESTIONS.filter((q) => q.kind === kind).length;
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`node ${process.version}, ${new Date().toISOString()}`);
    out(
      `recall@${K} over ${BENCH_QUESTIONS.length} questions (${kinds.map((k) => `${count(k)} ${k}`).join(', ')}); ${live.length} memories; ` +
        `embeddings: ${real ? `${real} at ${env['OPENAI_BASE_URL'] ?? 'api.openai.com'}` : 'the scripted server (hash vectors: no meaning)'}`,
    );
    out(`| ranking | all | ${kinds.join(' | ')} |`);
    out(`|---|---|${kinds.map(() => '---').join('|')}|`);
    const rows: [string, string][] = [
      ['lexical (BM25)', 'lexical'],
      ['recency (newest run outcomes)', 'recency'],
      ['semantic (embeddings alone)', 'semantic'],
      ['lexical + recency (recall without an embedding model)', 'default'],
      ['hybrid: lexical + semantic + recency (`memory.recall` with an embedding model)', 'hybrid'],
    ];
    for (const [label, key] of rows) {
      const score = scoreRanking(K, BENCH_QUESTIONS, answers[key]);
      out(`| ${label} | ${score.all.toFixed(2)} | ${kinds.map((k) => score[k].toFixed(2)).join(' | ')} |`);
    }
    if (process.argv.includes('--misses')) {
      BENCH_QUESTIONS.forEach((q, i) =>
        out(`${q.kind}\t${q.text}\t${q.relevant.join(',')}\t${answers['default'][i].join(',')}\t${answers['hybrid'][i].join(',')}`),
      );
    }
  } finally {
    await host.close();
    await scripted?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Request = (
  subject: 'memory.retain',
  data: { projectRoot: string; tier: 'architecture'; content: string; tags: string[]; memoryId: string },
) => Promise<unknown>;

/** The notes by `memory.retain`, then each run as the run stream records it; returns each memory id's bench name. */
async function writeMemories(store: EventStore, request: Request): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const note of BENCH_NOTES) {
    await request('memory.retain', {
      projectRoot: PROJECT,
      tier: 'architecture',
      content: note.content,
      tags: note.tags,
      memoryId: note.id,
    });
    names.set(note.id, note.id);
  }
  for (const run of BENCH_RUNS) {
    const runId = `bench-run-${run.n}`;
    names.set(runOutcomeMemoryId(runId), `o-${run.n}`);
    const metadata = { runId, correlationId: runId, occurredAt: `2026-11-0${run.n}T10:00:00.000Z` };
    const event = (type: string, data: Record<string, unknown>) => ({ id: randomUUID(), type, data, metadata });
    const calls = run.commands.flatMap(({ command, args }, i) => {
      const line = [command, ...args].join(' ');
      names.set(projectFactMemoryId(commandKind(command, args)!, line), `f-${line}`);
      const callId = `${runId}-call-${i}`;
      return [
        event('ToolCallRequested', { callId, tool: 'run_command', arguments: { command, args }, stage: 'act' }),
        event('ToolCallCompleted', { callId, tool: 'run_command', ok: true, output: 'exit code: 0', truncated: false, durationMs: 1000 }),
      ];
    });
    await store.appendToStream(
      streams.run(runId),
      [
        event('RunStarted', {
          runId,
          conversationId: `conv-${run.n}`,
          userMode: 'agent',
          reasoningEnabled: true,
          userInput: run.userInput,
          projectRoot: PROJECT,
        }),
        ...calls,
        event('RunCompleted', { deliveryState: 'DONE', answer: run.answer }),
      ],
      { expectedRevision: 'no_stream' },
    );
  }
  return names;
}

/** The scope once the write policy has retained every memory the runs leave. */
async function settledScope(store: EventStore, expected: number): Promise<ScopeMemories> {
  for (let waited = 0; waited < 600; waited++) {
    const view = (await store.readAll()).reduce((v, e) => memoriesModel.evolve(v, e), memoriesModel.initialState() as MemoriesView);
    const scope = view.scopes[memoryScopeOf(PROJECT)];
    if (scope && scope.live.length >= expected) return scope;
    await sleep(50);
  }
  throw new Error(`the write policy did not retain ${expected} memories within 30 s`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
