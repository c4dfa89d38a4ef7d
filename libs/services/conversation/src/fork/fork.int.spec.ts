import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { RunEvent, runEvents, streams } from '@stagecraft/contracts';
import { Recorded, readEvents } from '@stagecraft/event-store';
import { DEFAULT_RUN_LIMITS, auditRun, replayRun } from '@stagecraft/run';
import { ScriptedModelServer } from '@stagecraft/scripted-model';
import { Host } from '@stagecraft/service-shell';
import { readWriteAgentScript } from '@stagecraft/testing';
import { followRun, startEmbedded } from '@stagecraft/testing-system';

/** What a forked head must repeat of the run it copied: every event's type and data, the first one's run id aside. */
const content = (events: readonly RunEvent[]) =>
  events.map(({ type, data }) => ({ type, data: type === 'RunStarted' ? { ...data, runId: undefined, forkedFrom: undefined } : data }));

describe('conversation.fork, embedded', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let project: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, host, project, close } = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-fork-',
      readme: '# Sample\nA tiny project.\n',
    }));
  });

  afterAll(() => close?.());

  const read = (runId: string) => readEvents(host.ports.store!, streams.run(runId), runEvents);
  const runStreams = async () => (await host.ports.store!.readAll()).filter((e) => e.streamId.startsWith(streams.run(''))).length;

  /** Starts a run (by `send` or `fork`) under a known id and waits for its end on the live feed. */
  async function followed<R>(runId: string, start: () => Promise<R>): Promise<{ reply: R; stored: Recorded<RunEvent>[] }> {
    const { reply } = await followRun(host, runId, start);
    return { reply, stored: await read(runId) };
  }

  const send = (runId: string) =>
    followed(runId, () =>
      host.ports.requester.request('conversation.send', {
        runId,
        message: 'Write notes about this project',
        userMode: 'agent',
        reasoningEnabled: true,
        projectRoot: project,
      }),
    );
  const fork = (runId: string, atRevision: number, newRunId = `fork-${randomUUID()}`) =>
    followed(newRunId, () => host.ports.requester.request('conversation.fork', { runId, atRevision, newRunId }));

  /** The revision of the last event of the commit that holds `revision`. */
  const commitEnd = (events: readonly Recorded<RunEvent>[], revision: number) =>
    Number(events.findLast((e) => e.metadata.commitStart === events[revision].metadata.commitStart)!.revision);

  const chatRequests = (runId: string) =>
    server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);

  it('forks a finished run at a stage boundary: the copy repeats its head, the rest is decided and asked again, the old run stays', async () => {
    const { stored: old } = await send('run-original');
    expect(old.at(-1)).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
    // The act stage's last answer enters the delivery check in the same commit: a stage boundary.
    const at = old.findIndex((e) => e.type === 'StageEntered' && e.data.stage === 'delivery_check');
    expect(commitEnd(old, at)).toBe(at);
    const oldRequests = chatRequests('run-original');

    const { reply, stored: forked } = await fork('run-original', at, 'run-fork');
    expect(reply).toEqual({
      runId: 'run-fork',
      conversationId: old[0].metadata.conversationId,
      forkedFrom: { runId: 'run-original', revision: at },
    });
    expect(forked.at(-1)).toMatchObject({
      type: 'RunCompleted',
      data: { deliveryState: 'DONE', answer: 'Wrote NOTES.md from the README.' },
    });
    expect(forked[0].data).toMatchObject({ runId: 'run-fork', forkedFrom: { runId: 'run-original', revision: at } });
    expect(content(forked.slice(0, at + 1))).toEqual(content(old.slice(0, at + 1)));
    expect(forked.slice(0, at + 1).every((e, i) => e.id !== old[i].id && e.metadata.runId === 'run-fork')).toBe(true);
    expect(await read('run-original')).toEqual(old);

    // The model saw only the steps after the fork point, under ids that go on from the new run's.
    const asked = chatRequests('run-fork');
    expect(asked.map((r) => r.stage)).toEqual(['delivery_check', 'qa_review']);
    expect(asked.map((r) => r.stage)).toEqual(oldRequests.slice(-asked.length).map((r) => r.stage));
    const copiedRequests = forked.slice(0, at + 1).filter((e) => e.type === 'ModelRequested').length;
    expect(forked.slice(at + 1).find((e) => e.type === 'ModelRequested')?.data.requestId).toBe(`run-fork.m${copiedRequests + 1}`);

    // Replayed, the head is taken as recorded and the rest decided again; every invariant holds.
    expect(replayRun(forked, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true, copied: at + 1, events: forked.length });
    expect(auditRun(forked)).toEqual([]);
  });

  it('forks at an open tool call: the tool service hands back the recorded result instead of running the call again', async () => {
    const old = await read('run-original');
    const requested = old.find((e) => e.type === 'ToolCallRequested' && e.data.tool === 'write_file');
    if (requested?.type !== 'ToolCallRequested') throw new Error('the run wrote no file');
    const at = commitEnd(old, Number(requested.revision));
    expect(old[at + 1]?.type).toBe('ToolCallCompleted');
    writeFileSync(join(project, 'NOTES.md'), 'changed by hand\n');

    const { stored: forked } = await fork('run-original', at);
    expect(forked.at(-1)).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
    const completed = (events: readonly RunEvent[]) =>
      events.find((e) => e.type === 'ToolCallCompleted' && e.data.callId === requested.data.callId);
    expect(completed(forked)?.data).toEqual(completed(old)?.data);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('changed by hand\n');
    const call = await host.ports.store!.readStream(streams.toolCall(requested.data.callId));
    expect(call.map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);
  });

  it('refuses what it cannot fork with a structured error, and appends nothing', async () => {
    const old = await read('run-original');
    const last = old.length - 1;
    const inside = old.findIndex((e) => e.type === 'ModelResponded');
    const end = commitEnd(old, inside);
    const before = await runStreams();
    const refused = (runId: string, atRevision: number, newRunId?: string) =>
      host.ports.requester.request('conversation.fork', { runId, atRevision, ...(newRunId ? { newRunId } : {}) });

    await expect(refused('run-nowhere', 0, 'run-never-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(refused('run-original', last + 1, 'run-never-2')).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['atRevision'] }],
    });
    await expect(refused('run-original', -1, 'run-never-3')).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['atRevision'] }],
    });
    await expect(refused('run-original', inside, 'run-never-4')).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining(`the nearest commit ends are ${inside - 2} or ${end}`),
    });
    // RunStarted opens the first commit, which also holds the user's message and the first stage entry.
    await expect(refused('run-original', 0, 'run-never-5')).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('the nearest commit ends are 2'),
    });
    await expect(refused('run-original', last, 'run-never-6')).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('has completed'),
    });
    await expect(refused('run-original', end, 'run-fork')).rejects.toMatchObject({ code: 'CONFLICT', issues: [{ path: ['newRunId'] }] });

    expect(await runStreams()).toBe(before);
    for (let n = 1; n <= 6; n++) expect(await read(`run-never-${n}`)).toEqual([]);
    expect(await read('run-original')).toEqual(old);
  });
});
