import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompactionSettings, EventData, streams } from '@stagecraft/contracts';
import { renderDigest } from '@stagecraft/run';
import { RecordedRequest, startScriptedModelServer } from '@stagecraft/scripted-model';
import { EmbeddedServices, runToEnd, scriptedGateway, startEmbeddedServices } from './embedded-services';
import {
  RetentionScenario,
  RetentionScore,
  goalOf,
  plantedFacts,
  requestText,
  retentionScript,
  scoreRetention,
  writeRetentionProject,
} from './retention';

export const RETENTION_SCENARIO: RetentionScenario = {
  turns: 14,
  roundsPerTurn: 3,
  lastTurnRounds: 60,
  plantedRounds: 12,
  fileBytes: 2_000,
};
/**
 * The service's default token trigger (`STAGECRAFT_COMPACT_MAX_TOKENS`, 24,000), with few enough messages
 * and a small enough verbatim window that the long run compacts several times and the earlier turns are
 * compacted into it. `npm run bench:retention 60 8000` is the tighter stress setting.
 */
export const RETENTION_COMPACTION: Omit<CompactionSettings, 'summaryVersion'> = {
  method: 'extractive',
  maxMessages: 40,
  maxTokens: 24_000,
  keepRecentTokens: 2_000,
};

export interface RetentionResult {
  score: RetentionScore;
  compactions: { lastRun: number; earlierRuns: number; conversation: number };
  /** The measured request: the last the acting stages sent (the reviewer has its own). */
  finalRequestChars: number;
  /** The turns' digests as the model reads them: how many turns carry one, and their largest size in characters. */
  digests: { count: number; maxChars: number; totalChars: number };
  largestRequestChars: number;
  requests: number;
  ends: string[];
}

const bodyChars = (r: RecordedRequest) => JSON.stringify(r.body?.messages ?? []).length;

async function countCompactions(system: EmbeddedServices, streamNames: readonly string[]): Promise<number> {
  let count = 0;
  for (const name of streamNames) count += (await system.store.readStream(name)).filter((e) => e.type === 'HistoryCompacted').length;
  return count;
}

async function digestSizes(system: EmbeddedServices, conversationId: string): Promise<RetentionResult['digests']> {
  const sizes = (await system.store.readStream(streams.conversation(conversationId))).flatMap((e) => {
    const digest = e.type === 'MessageAppended' ? (e.data as EventData<'MessageAppended'>).digest : undefined;
    return digest ? [renderDigest(digest).length] : [];
  });
  return { count: sizes.length, maxChars: Math.max(0, ...sizes), totalChars: sizes.reduce((a, b) => a + b, 0) };
}

/** Waits until the conversation holds `turns` turns: the next run must start after the last one's turn is in. */
async function turnsStored(system: EmbeddedServices, conversationId: string, turns: number): Promise<void> {
  for (;;) {
    const held = await system.store.readStream(streams.conversation(conversationId));
    if (held.filter((e) => e.type === 'MessageAppended').length >= 2 * turns) return;
    await sleep(20);
  }
}

/** One conversation of the scenario, embedded, with the summary rule `summaryVersion`; scored on its last acting request. */
export async function measureRetention(
  summaryVersion: 1 | 2,
  s = RETENTION_SCENARIO,
  compaction = RETENTION_COMPACTION,
): Promise<RetentionResult> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-retention-'));
  writeRetentionProject(join(dir, 'project'), s);
  let turn = 1;
  const server = await startScriptedModelServer({ script: retentionScript(s, () => turn) });
  const system = await startEmbeddedServices({
    gateway: scriptedGateway(server.url),
    storePath: join(dir, 'events.db'),
    conversation: {
      resume: false,
      limits: { maxToolIterations: s.lastTurnRounds + 10 },
      compaction: { ...compaction, summaryVersion },
    },
  });
  try {
    let conversationId: string | undefined;
    const runStreams: string[] = [];
    const ends: string[] = [];
    let lastRunFrom = 0;
    for (; turn <= s.turns; turn++) {
      const runId = `retention-v${summaryVersion}-t${turn}`;
      runStreams.push(streams.run(runId));
      lastRunFrom = server.requests.length;
      const end = await runToEnd(system, {
        runId,
        ...(conversationId ? { conversationId } : {}),
        message: goalOf(turn),
        userMode: 'agent',
        reasoningEnabled: true,
        projectRoot: join(dir, 'project'),
      });
      ends.push(end.end);
      conversationId = end.conversationId;
      if (end.end === 'RunCompleted') await turnsStored(system, conversationId, turn);
    }
    const acting = server.requests.slice(lastRunFrom).filter((r) => r.stage !== 'qa_review');
    const final = acting.at(-1);
    if (!final) throw new Error('the last turn sent no request');
    return {
      score: scoreRetention(plantedFacts(s), requestText(final)),
      compactions: {
        lastRun: await countCompactions(system, runStreams.slice(-1)),
        earlierRuns: await countCompactions(system, runStreams.slice(0, -1)),
        conversation: await countCompactions(system, [streams.conversation(conversationId!)]),
      },
      finalRequestChars: bodyChars(final),
      digests: await digestSizes(system, conversationId!),
      largestRequestChars: Math.max(...server.requests.map(bodyChars)),
      requests: server.requests.length,
      ends,
    };
  } finally {
    await system.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const percent = (kept: number, total: number) => (total === 0 ? 'n/a' : `${((100 * kept) / total).toFixed(1)}%`);

export function retentionLines(label: string, r: RetentionResult): string[] {
  const { score } = r;
  const kinds = Object.entries(score.byKind)
    .map(([kind, k]) => `${kind} ${k.kept}/${k.total}`)
    .join(', ');
  const failed = r.ends.filter((e) => e !== 'RunCompleted').length;
  const ownTurn = (['goal', 'answer', 'decision', 'tool'] as const).reduce(
    (sum, kind) => ({ kept: sum.kept + score.byKind[kind].kept, total: sum.total + score.byKind[kind].total }),
    { kept: 0, total: 0 },
  );
  return [
    `${label}: ${percent(score.kept, score.total)} of planted facts in the last request (${score.kept}/${score.total}); ` +
      `compactions: ${r.compactions.lastRun} in the last run, ${r.compactions.earlierRuns} in earlier runs, ${r.compactions.conversation} of the conversation; ` +
      `last request ${Math.round(r.finalRequestChars / 1000)}k chars (~${Math.round(r.finalRequestChars / 4000)}k tokens), ` +
      `largest ${Math.round(r.largestRequestChars / 1000)}k chars; ${r.requests} model requests; ` +
      `${r.digests.count} turn digests (largest ${r.digests.maxChars} chars, ${r.digests.totalChars} in all)` +
      (failed ? `; ${failed} run(s) did not complete` : ''),
    `  by kind: ${kinds}; without earlier turns' runs (the headline before digests): ${percent(ownTurn.kept, ownTurn.total)} (${ownTurn.kept}/${ownTurn.total})`,
    ...(score.lost.length ? [`  lost: ${score.lost.slice(0, 12).join(' ')}${score.lost.length > 12 ? ' …' : ''}`] : []),
  ];
}

/**
 * Seed 002 §7: how much of what was planted early in a long conversation is still in what the model
 * is sent at the end, with the summary rule of logs before version 2 (the baseline) and with version 2.
 */
export async function runRetentionBench(
  print: (line: string) => void,
  s = RETENTION_SCENARIO,
  compaction = RETENTION_COMPACTION,
): Promise<void> {
  print(
    `scenario: ${s.turns} turns (${s.roundsPerTurn} tool rounds each, the last ${s.lastTurnRounds}; facts in every goal and answer, ` +
      `in the first ${s.plantedRounds} files and plan deltas of the last run, and in one file and plan delta of each earlier run); ` +
      `files of ${s.fileBytes} bytes; compaction ${JSON.stringify(compaction)}; embedded services, scripted model`,
  );
  print(
    'headline share: every kind (goal, answer, decision, tool, earlier-decision, earlier-tool); earlier-* reach later turns through each turn’s digest',
  );
  for (const version of [1, 2] as const)
    for (const line of retentionLines(
      `summary version ${version}${version === 1 ? ' (before)' : ''}`,
      await measureRetention(version, s, compaction),
    ))
      print(line);
}
