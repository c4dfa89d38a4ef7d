import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { eventually, exitOf, freePort, readWriteAgentScript, spawnApp, waitForHttp } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * A run in flight while prompt assembly is killed (SIGKILL, every replica there is) and comes back:
 * the conversation service asks `prompt.assemble` again, as it asks `tool.execute`, and the run ends
 * DONE instead of failing. The kill lands at a fixed point: after the warmup's prompt was assembled,
 * while the model answers it, so the next stage's prompt finds nobody to assemble it.
 */
describe('prompt assembly restarted mid-run (distributed)', () => {
  const prefix = 'pa-restart';
  let server: ScriptedModelServer;
  let dir: string;
  let system: DistributedSystem;
  let warmupAsked: () => void = () => undefined;
  const warmup = new Promise<void>((resolve) => (warmupAsked = resolve));
  let answerWarmup: () => void = () => undefined;
  const killed = new Promise<void>((resolve) => (answerWarmup = resolve));

  beforeAll(async () => {
    server = await startScriptedModelServer({
      script: async (request: RecordedRequest) => {
        if (request.stage === 'warmup') {
          warmupAsked();
          await killed;
        }
        return readWriteAgentScript(request);
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-pa-restart-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks prompt assembly again until it is back, and the run completes DONE', async () => {
    const runId = 'pa-restart-1';
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\n');
    await system.requester.request('conversation.send', {
      runId,
      message: 'Write notes about the README',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });

    await warmup;
    const index = system.services.findIndex((s) => s.name === 'prompt-assembly');
    const victim = system.services[index];
    victim.child.kill('SIGKILL');
    await exitOf(victim.child);
    answerWarmup();

    const conversation = system.services.find((s) => s.name === 'conversation');
    await eventually(
      async () => (conversation?.output().includes('no prompt assembly answers; asking again') ? true : undefined),
      'the conversation service to ask prompt assembly again',
      { timeoutMs: 20_000 },
    );
    const port = await freePort();
    system.services[index] = spawnApp('prompt-assembly', system.envFor('prompt-assembly', port));
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${system.services[index].output().slice(-3_000)}`);
    });

    const end = await eventually(
      async () => {
        const [last] = (await system.store.readStream(streams.run(runId), {
          direction: 'backwards',
          maxCount: 1,
        })) as unknown as StagecraftEvent[];
        return last?.type === 'RunCompleted' || last?.type === 'RunFailed' ? last : undefined;
      },
      `run ${runId} to end`,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(end).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
  }, 150_000);
});
