import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventOf, StagecraftEvent, streams } from '@stagecraft/contracts';
import { DEFAULT_RUN_LIMITS } from '@stagecraft/run';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { QA_PASS_REPORT, macroReasoning, microReasoning, toolResultsIn } from '@stagecraft/testing';
import { runToEnd, scriptedGateway, sixServices } from '@stagecraft/testing-system';

/** An agent that never stops reading and never calls its work done: only the run's bounds end it. */
function endlessReader(request: { stage?: string; body: { messages?: { role: string }[] } }) {
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will keep reading.` };
    case 'act':
    case 'tool_followup': {
      const done = toolResultsIn(request.body);
      const id = `call_${done}`;
      // A different range each round: the same call again and again is a stuck loop, ended before the bounds (docs/decisions/0056).
      const args = { path: 'README.md', endLine: done + 1 };
      return { content: microReasoning('read README.md'), toolCalls: [{ id, name: 'read_file', arguments: args }] };
    }
    case 'delivery_check':
      return { content: `${microReasoning('read more', 'NEEDS_WORK')}\nNot done yet.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

describe('run limits a user sets', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let dir: string;
  let project: string;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: endlessReader });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-limits-'));
    project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\n');
    host = await startHost({
      definitions: sixServices(scriptedGateway(server.url)),
      transport: 'inproc',
      store: `sqlite:${join(dir, 'events.db')}`,
      config: { prefix: 'stagecraft', requestTimeoutMs: 10_000, logLevel: 'silent' },
      // The service's settings: a request's own bounds go over them.
      env: { STAGECRAFT_MAX_TOOL_ROUNDS: '3', STAGECRAFT_MAX_DELIVERY_CHECKS: '1' },
    });
  });

  afterAll(async () => {
    await host?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(runId: string, limits?: { maxToolIterations?: number; maxDeliveryChecks?: number }) {
    await runToEnd(host, { runId, message: 'Read the README until it is done', projectRoot: project, ...(limits && { limits }) });
    return (await host.ports.store!.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
  }
  const started = (stored: StagecraftEvent[]) => stored.find((e): e is EventOf<'RunStarted'> => e.type === 'RunStarted')!.data;
  const stagesOf = (stored: StagecraftEvent[]) => stored.flatMap((e) => (e.type === 'StageEntered' ? [e.data.stage] : []));
  const limitsReached = (stored: StagecraftEvent[]) => stored.flatMap((e) => (e.type === 'LimitReached' ? [e.data] : []));

  it('goes to the delivery gate after the rounds the request asked for, and records the bounds it ran with', async () => {
    const stored = await run('run-limits-asked', { maxToolIterations: 2 });
    expect(started(stored).limits).toEqual({ ...DEFAULT_RUN_LIMITS, maxToolIterations: 2, maxDeliveryChecks: 1 });
    // act, then two follow-ups: the third round would be over the bound, so the gate comes instead.
    expect(stagesOf(stored)).toEqual(['warmup', 'act', 'tool_followup', 'tool_followup', 'delivery_check', 'qa_review']);
    expect(stored.filter((e) => e.type === 'ToolCallCompleted')).toHaveLength(3);
    expect(limitsReached(stored)).toEqual([
      { limit: 'maxToolIterations', value: 2, stage: 'tool_followup', iteration: 2 },
      { limit: 'maxDeliveryChecks', value: 1, stage: 'delivery_check', iteration: 0 },
    ]);
    expect(stored.at(-1)).toMatchObject({ type: 'RunCompleted', data: { limit: 'maxDeliveryChecks' } });
  });

  it("runs with the service's settings when the request asks for none", async () => {
    const stored = await run('run-limits-settings');
    expect(started(stored).limits).toEqual({ ...DEFAULT_RUN_LIMITS, maxToolIterations: 3, maxDeliveryChecks: 1 });
    expect(stagesOf(stored).filter((s) => s === 'tool_followup')).toHaveLength(3);
    expect(limitsReached(stored)[0]).toMatchObject({ limit: 'maxToolIterations', value: 3 });
  });

  it.each([
    [{ maxToolIterations: 0 }, ['limits', 'maxToolIterations']],
    [{ maxDeliveryChecks: 21 }, ['limits', 'maxDeliveryChecks']],
    [{ maxCorrectionsPerStage: 9 }, ['limits']],
  ])('refuses limits %j with VALIDATION and appends nothing', async (limits, path) => {
    const before = (await host.ports.store!.readAll()).length;
    await expect(
      host.ports.requester.request('conversation.send', {
        runId: 'run-limits-refused',
        message: 'hi',
        userMode: 'agent',
        reasoningEnabled: true,
        projectRoot: project,
        limits: limits as never,
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', issues: [expect.objectContaining({ path })] });
    expect((await host.ports.store!.readAll()).length).toBe(before);
  });
});
