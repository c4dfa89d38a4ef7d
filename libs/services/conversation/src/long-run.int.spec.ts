import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { RecordedEvent } from '@stagecraft/event-store';
import { Host } from '@stagecraft/service-shell';
import { longToolLoopScript, writeToolLoopProject } from '@stagecraft/testing';
import { runToEnd as sendToEnd, startEmbedded } from '@stagecraft/testing-system';
import { restoreRequests } from './prompt-bodies';

const ROUNDS = 24;
const OUTPUT_BYTES = 1_000;

const sizeOf = (e: RecordedEvent) => Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata));

describe(`a ${ROUNDS}-round tool loop`, () => {
  let host: Host;
  let dir: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const loop = { rounds: ROUNDS, outputBytes: OUTPUT_BYTES };
    ({ host, dir, close } = await startEmbedded({
      script: longToolLoopScript(loop),
      dirPrefix: 'stagecraft-loop-',
      requestTimeoutMs: 30_000,
      conversation: { limits: { maxToolIterations: ROUNDS } },
    }));
    expect(writeToolLoopProject(dir, loop)).toHaveLength(ROUNDS);
  });

  afterAll(() => close?.());

  async function runToEnd(runId: string): Promise<RecordedEvent[]> {
    await sendToEnd(host, { runId, message: 'Summarise every module', projectRoot: dir });
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

  it('stores no prompt body again when the same run comes a second time, but the memories its warmup recalls', async () => {
    const bodies = async () =>
      (await host.ports.store!.readAll()).flatMap((e) => (e.type === 'PromptBodyStored' ? [(e.data as { body: string }).body] : []));
    const before = (await bodies()).length;
    // The earlier run's outcome is retained by the memory service after it completed: wait for it.
    while (!(await host.ports.store!.readAll()).some((e) => e.type === 'MemoryRetained')) await new Promise((r) => setTimeout(r, 20));
    const second = await runToEnd('loop-2');
    expect(second.at(-1)).toMatchObject({ type: 'RunCompleted' });
    // The first run left a run-outcome memory: the second warmup shows it. Every new body is a section
    // of that warmup's prompt (its system message or its stage's part), or the message that lists its sections.
    const added = (await bodies()).slice(before);
    const warmupSystem = (await restoreRequests(host.ports.store!, 'loop-2'))[0].messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    expect(added.filter((body) => body.includes("## Recalled from this project's memory"))).toHaveLength(1);
    for (const body of added) expect(body.startsWith('{"contentPieces"') || warmupSystem.includes(body.trim())).toBe(true);
  }, 60_000);
});
