import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventOf, ReadOnlyToolName, StagecraftEvent, expandMessageHashes, streams } from '@stagecraft/contracts';
import { piecesNamedBy, storedBodiesOf } from '@stagecraft/model-gateway';
import { toChatMessage, withOutput } from '@stagecraft/run';
import { ScriptedModelServer } from '@stagecraft/scripted-model';
import { Host } from '@stagecraft/service-shell';
import { readWriteAgentScript } from '@stagecraft/testing';
import { runToEnd as sendToEnd, startEmbedded } from '@stagecraft/testing-system';
import { restoreRequests } from './prompt-bodies';

describe('a run, embedded', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let dir: string;
  let project: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, host, dir, project, close } = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-run-',
      readme: '# Sample\nA tiny project.\n',
    }));
  });

  afterAll(() => close?.());

  async function runToEnd(message: string, options: { mode?: 'agent' | 'chat'; reasoning?: boolean } = {}) {
    const runId = `run-${Math.random().toString(36).slice(2, 10)}`;
    const { live } = await sendToEnd(host, {
      runId,
      message,
      userMode: options.mode,
      reasoningEnabled: options.reasoning,
      projectRoot: project,
    });
    const stored = (await host.ports.store!.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
    return { runId, live, stored };
  }

  it('reads a file, writes a file, passes delivery, gets QA, and stores every step', async () => {
    const { stored, live, runId } = await runToEnd('Write notes about this project');
    const failure = stored.find((e) => e.type === 'RunFailed');
    expect(failure?.data).toBeUndefined();
    expect(live.map((e) => e.type)).toEqual(stored.map((e) => e.type));
    const stages = stored.flatMap((e) => (e.type === 'StageEntered' ? [e.data.stage] : []));
    expect(stages).toEqual(['warmup', 'act', 'tool_followup', 'tool_followup', 'delivery_check', 'qa_review']);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('Sample project notes.\n');
    const completed = stored.at(-1);
    expect(completed).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'Wrote NOTES.md from the README.' } });
    expect(stored.find((e) => e.type === 'QAReportIssued')?.data).toMatchObject({ report: { verdict: 'pass' } });
    // The reviewer asked for structured output; this scripted endpoint ignores it and the fenced report was read (0059).
    expect(stored.find((e) => e.type === 'QAReportIssued')?.data).toMatchObject({ modelCalls: [{ structured: 'json_schema' }] });
    const { run } = await host.ports.requester.request('conversation.run.get', { runId });
    expect(run).toMatchObject({ status: 'completed', deliveryState: 'DONE' });
  });

  it('sends the model what the invariants demand', () => {
    const chat = server.requests.filter((r) => r.path === '/chat/completions');
    expect(chat.length).toBeGreaterThanOrEqual(6);
    for (const r of chat) {
      expect(r.headers['x-stagecraft-run-id']).toBeTruthy();
      expect(r.headers['x-stagecraft-conversation-id']).toBeTruthy();
      expect(r.headers['x-stagecraft-stage']).toBe(r.stage);
      // The prompt is the system message and, for the run's own stages, the stage's part after the history.
      const prompt = (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'system').map((m) => m.content);
      expect(prompt.join('\n')).toContain('<ide_reasoning>');
      for (const m of r.body.messages.filter((m: { role: string }) => m.role !== 'system'))
        expect(String(m.content ?? '')).not.toContain('<ide_reasoning>');
    }
    const toolsOf = (stage: string) =>
      chat
        .filter((r) => r.stage === stage)
        .map((r) => ({
          tools: (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name).sort(),
          choice: r.body.tool_choice,
        }));
    const acting = toolsOf('act')[0].tools;
    expect(acting).toContain('write_file');
    // Every request of the run offers the same tools; where the stage may call none, it says so (docs/decisions/0052).
    for (const stage of ['warmup', 'act', 'tool_followup', 'delivery_check'])
      for (const offered of toolsOf(stage))
        expect(offered).toEqual({ tools: acting, choice: stage === 'warmup' || stage === 'delivery_check' ? 'none' : undefined });
    // The reviewer reads: the read-only tools, and recall, the one memory tool that only reads.
    for (const { tools } of toolsOf('qa_review')) expect(tools).toEqual([...ReadOnlyToolName.options, 'memory_recall'].sort());
  });

  it("starts every request of the run with the previous request's messages, byte for byte, but the last (docs/decisions/0052)", () => {
    const runId = server.requests.find((r) => r.path === '/chat/completions')?.headers['x-stagecraft-run-id'];
    const chain = server.requests.filter(
      (r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId && r.stage !== 'qa_review',
    );
    expect(chain.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < chain.length; i++) {
      const before = (chain[i - 1].body.messages as unknown[]).map((m) => JSON.stringify(m));
      const now = (chain[i].body.messages as unknown[]).map((m) => JSON.stringify(m));
      expect(now.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
      expect(JSON.stringify(chain[i].body.tools)).toBe(JSON.stringify(chain[0].body.tools));
    }
  });

  it('stores each prompt body once per store, and the log restores exactly what the model was sent', async () => {
    const bodiesBefore = (await host.ports.store!.readAll()).filter((e) => e.type === 'PromptBodyStored').length;
    expect(bodiesBefore).toBeGreaterThan(0);
    // The earlier run's outcome is retained by the memory service after it completed: wait for it.
    while (!(await host.ports.store!.readAll()).some((e) => e.type === 'MemoryRetained')) await new Promise((r) => setTimeout(r, 20));
    const { runId, stored } = await runToEnd('Write notes about this project');
    const sent = server.requests.filter(
      (r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId && r.stage !== 'qa_review',
    );
    const restored = await restoreRequests(host.ports.store!, runId);
    expect(restored.map((r) => r.requestId)).toEqual(stored.flatMap((e) => (e.type === 'ModelRequested' ? [e.data.requestId] : [])));
    expect(restored).toHaveLength(sent.length);
    restored.forEach((request, i) => {
      const received = sent[i].body.messages as { role: string; content: string | null }[];
      expect(request.messages.map((m) => [m.role, m.content])).toEqual(received.map((m) => [m.role, m.content ?? '']));
    });
    // The run before this one, in the same store, sent the same system prompts, except for what this
    // run's warmup adds about the project as it is now, such as the memories the earlier run left:
    // every new body is a section of the warmup's system prompt, or the message that lists its sections.
    const bodies = (await host.ports.store!.readAll()).filter((e) => e.type === 'PromptBodyStored');
    const added = bodies.slice(bodiesBefore).map((e) => (e.data as { body: string }).body);
    const warmupSystem = restored[0].messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    // The memories are the warmup's own: its part after the history, which later requests do not repeat.
    expect(String(restored[0].messages.at(-1)?.content)).toContain("## Recalled from this project's memory");
    expect(added.filter((body) => body.includes("## Recalled from this project's memory"))).toHaveLength(1);
    for (const body of added) expect(body.startsWith('{"contentPieces"') || warmupSystem.includes(body.trim())).toBe(true);
  });

  it('stores every body a request names before the request: the log never names a body it lacks', async () => {
    await runToEnd('Write notes about this project');
    // Every run in this store, in log order: what a request names must be readable where it stands.
    const stored = new Map<string, string>();
    const runs = new Map<string, { held: Map<string, string>; previous: string[]; completed?: { callId: string; output: string } }>();
    let requests = 0;
    for (const e of await host.ports.store!.readAll()) {
      const event = e as typeof e & StagecraftEvent;
      if (event.type === 'PromptBodyStored') stored.set(event.data.hash, event.data.body);
      if (!e.streamId.startsWith(streams.run(''))) continue;
      const run = runs.get(e.streamId) ?? { held: new Map<string, string>(), previous: [], completed: undefined };
      runs.set(e.streamId, run);
      if (event.type === 'ToolCallCompleted') run.completed = { callId: event.data.callId, output: event.data.output };
      if (event.type === 'MessageAppended')
        for (const [hash, body] of storedBodiesOf([toChatMessage(withOutput(event.data, run.completed))])) run.held.set(hash, body);
      if (event.type !== 'ModelRequested') continue;
      const { messageHashes, requestId } = (event as EventOf<'ModelRequested'>).data;
      const hashes = expandMessageHashes(messageHashes, run.previous);
      const bodyOf = (hash: string) => stored.get(hash) ?? run.held.get(hash);
      const missing = hashes.flatMap((hash) => [hash, ...piecesNamedBy(bodyOf(hash) ?? '{}')]).filter((hash) => bodyOf(hash) === undefined);
      expect({ requestId, missing }).toEqual({ requestId, missing: [] });
      run.previous = hashes;
      requests += 1;
    }
    expect(requests).toBeGreaterThanOrEqual(15);
  });

  it('refuses a project root that does not exist, and stores nothing', async () => {
    const runId = 'run-missing-root';
    await expect(
      host.ports.requester.request('conversation.send', {
        runId,
        message: 'hi',
        userMode: 'agent',
        reasoningEnabled: false,
        projectRoot: join(dir, 'nowhere'),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', issues: [{ path: ['projectRoot'] }] });
    expect(await host.ports.store!.readStream(streams.run(runId))).toEqual([]);
  });
});
