import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { RecordedEvent } from '@stagecraft/event-store';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { createOpenAiGateway } from '@stagecraft/model-gateway';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { memoryService } from '@stagecraft/memory-service';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { policyService } from '@stagecraft/policy-service';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { qaServiceWith } from '@stagecraft/qa-service';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { toolExecutionService } from '@stagecraft/tool-execution-service';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { longToolLoopScript, writeToolLoopProject } from '@stagecraft/testing';
import pino from 'pino';
import { conversationServiceWith } from './index';
import { restoreRequests } from './prompt-bodies';

const ROUNDS = 24;
const OUTPUT_BYTES = 1_000;

const sizeOf = (e: RecordedEvent) => Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata));

describe(`a ${ROUNDS}-round tool loop`, () => {
  let server: ScriptedModelServer;
  let host: Host;
  let dir: string;

  beforeAll(async () => {
    const loop = { rounds: ROUNDS, outputBytes: OUTPUT_BYTES };
    server = await startScriptedModelServer({ script: longToolLoopScript(loop) });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-loop-'));
    expect(writeToolLoopProject(dir, loop)).toHaveLength(ROUNDS);
    const gateway = createOpenAiGateway({
      baseURL: server.url,
      apiKey: 'test',
      model: 'scripted',
      logger: pino({ level: 'silent' }),
      maxRetries: 0,
    });
    host = await startHost({
      definitions: [
        conversationServiceWith({ gateway, limits: { maxToolIterations: ROUNDS } }),
        policyService,
        promptAssemblyService,
        toolExecutionService,
        qaServiceWith({ gateway }),
        memoryService,
      ],
      transport: 'inproc',
      store: `sqlite:${join(dir, 'events.db')}`,
      config: { prefix: 'stagecraft', requestTimeoutMs: 30_000, logLevel: 'silent' },
    });
  });

  afterAll(async () => {
    await host?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runToEnd(runId: string): Promise<RecordedEvent[]> {
    const finished = new Promise<void>((resolve) =>
      subscribeRunEvents(host.ports.bus, 'stagecraft', runId, (e) => {
        if (e.type === 'RunCompleted' || e.type === 'RunFailed') resolve();
      }),
    );
    await host.ports.requester.request('conversation.send', {
      runId,
      message: 'Summarise every module',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: dir,
    });
    await finished;
    return host.ports.store!.readStream(streams.run(runId));
  }

  it('reads every file, and stores about the same for each round: the log grows with the run, not with its square', async () => {
    const stored = await runToEnd('loop-1');
    const events = stored as (RecordedEvent & StagecraftEvent)[];
    expect(events.at(-1)).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
    const reads = events.flatMap((e) => (e.type === 'ToolCallCompleted' && e.data.ok ? [e.data.output.split('\n')[0]] : []));
    expect(reads).toHaveLength(ROUNDS);
    expect(new Set(reads).size).toBe(ROUNDS);

    // Bytes per round: each tool_followup stage entry and everything up to the next one.
    const rounds: number[] = [];
    for (const e of events) {
      if (e.type === 'StageEntered') rounds.push(0);
      rounds[rounds.length - 1] += sizeOf(e);
    }
    const followups = rounds.slice(2, 2 + ROUNDS - 1);
    expect(Math.max(...followups) / Math.min(...followups)).toBeLessThan(1.25);
    // The last request sends every file read so far, and records about as much as the second did.
    const requested = events.filter((e) => e.type === 'ModelRequested').map(sizeOf);
    expect(requested.at(-2)! / requested[1]).toBeLessThan(1.2);

    // Every request of the run restores from the log, the last one with all it sent.
    const restored = await restoreRequests(host.ports.store!, 'loop-1');
    const last = restored.at(-2)!;
    expect(last.messages.filter((m) => m.role === 'tool')).toHaveLength(ROUNDS);
  }, 60_000);

  it('stores no prompt body again when the same run comes a second time', async () => {
    const bodies = async () => (await host.ports.store!.readAll()).filter((e) => e.type === 'PromptBodyStored').length;
    const before = await bodies();
    const second = await runToEnd('loop-2');
    expect(second.at(-1)).toMatchObject({ type: 'RunCompleted' });
    expect(await bodies()).toBe(before);
  }, 60_000);
});
