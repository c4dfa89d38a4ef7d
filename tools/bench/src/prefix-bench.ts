import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordedRequest, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, longToolLoopScript, readWriteAgentScript, writeToolLoopProject } from '@stagecraft/testing';
import { runToEnd, scriptedGateway, startEmbeddedServices } from './embedded-services';
import { PrefixReport, cachedCostRatio, prefixReuse } from './prefix-reuse';

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

const summary = (name: string, end: string, report: PrefixReport) => {
  const sorted = [...report.shares].sort((a, b) => a - b);
  return (
    `${name}: ${end}, ${report.requests} model requests, ${Math.round(report.totalChars / 1000)}k chars sent; ` +
    `reusable prefix ${percent(report.reusableChars / report.totalChars)} overall, ` +
    `per request median ${percent(sorted[Math.floor(sorted.length / 2)] ?? 0)}, min ${percent(sorted[0] ?? 0)}; ` +
    `input cost at a 0.1× cached price: ${cachedCostRatio(report, 0.1).toFixed(2)}× of uncached`
  );
};

/**
 * One conversation of `messages.length` turns on `project`. The first turn is measured from a cold cache,
 * each request against the previous one of its caller; a later turn against every earlier request of the
 * session, as a provider's automatic prefix cache sees it (the system prompt and tools of the turn before).
 */
async function measure(
  print: (line: string) => void,
  name: string,
  project: string,
  script: (request: RecordedRequest) => ScriptedReply,
  rounds: number,
  detail: boolean,
  messages: readonly string[] = ['Write notes about this project'],
): Promise<PrefixReport> {
  const server = await startScriptedModelServer({ script });
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-prefix-'));
  const system = await startEmbeddedServices({
    gateway: scriptedGateway(server.url),
    storePath: join(dir, 'events.db'),
    conversation: { resume: false, limits: { maxToolIterations: Math.max(rounds, 12) } },
  });
  try {
    let conversationId: string | undefined;
    let first: PrefixReport | undefined;
    for (const [turn, message] of messages.entries()) {
      const countFrom = server.requests.filter((r) => r.path === '/chat/completions').length;
      const run = await runToEnd(system, {
        runId: `prefix-${randomUUID().slice(0, 8)}`,
        ...(conversationId ? { conversationId } : {}),
        message,
        userMode: 'agent',
        reasoningEnabled: true,
        projectRoot: project,
      });
      conversationId = run.conversationId;
      const report = turn === 0 ? prefixReuse(server.requests) : prefixReuse(server.requests, { cache: 'shared', countFrom });
      first ??= report;
      print(summary(turn === 0 ? name : `${name}, turn ${turn + 1} of the conversation`, run.end, report));
      if (detail)
        report.perRequest.forEach((r, i) =>
          print(
            `  #${i + 1} ${r.stage}: ${r.chars} chars, ${percent(r.shared / r.chars)} repeated, last message ${r.lastMessageChars} chars`,
          ),
        );
    }
    return first!;
  } finally {
    await system.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * How much of each model request repeats the beginning of the one before it: what a provider's prompt
 * cache can serve at its cached price. A 60-round tool loop and the six-stage sample run, embedded.
 */
export async function runPrefixBench(print: (line: string) => void, rounds = 60, detail = false): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-prefix-projects-'));
  try {
    const loop = { rounds, outputBytes: 2000 };
    writeToolLoopProject(join(dir, 'loop'), loop);
    const script = longToolLoopScript(loop);
    await measure(print, `tool loop, ${rounds} rounds`, join(dir, 'loop'), (r) => script(r) as ScriptedReply, rounds, detail);
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), join(dir, 'sample'), { recursive: true });
    await measure(print, 'sample run (six stages)', join(dir, 'sample'), (r) => readWriteAgentScript(r) as ScriptedReply, 12, detail, [
      'Write notes about this project',
      'Write notes about this project again, from the current files',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
