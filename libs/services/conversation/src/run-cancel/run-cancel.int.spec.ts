import { RequestOf, StagecraftEvent, runEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { auditRun, replayRun, DEFAULT_RUN_LIMITS } from '@stagecraft/run';
import { Host } from '@stagecraft/service-shell';
import { RecordedRequest, ScriptedReply } from '@stagecraft/scripted-model';
import { eventually, macroReasoning, readWriteAgentScript } from '@stagecraft/testing';
import { EmbeddedServices, runToEnd, startEmbedded } from '@stagecraft/testing-system';
import type { Conversation } from '../dependencies';

/**
 * `run.cancel`, embedded: a run that waits for a person is cancelled with nothing more decided, an
 * answer to it afterwards is a conflict; a run that has ended stays as it ended; bad and unknown
 * requests change nothing.
 */

let sequence = 0;
const newRunId = () => `run-cancel-${++sequence}`;

const storedOf = (host: Host, runId: string) => readEvents(host.ports.store!, streams.run(runId), runEvents);

async function sendUntilWaiting(host: Host, project: string, runId: string): Promise<StagecraftEvent> {
  let stop: () => void = () => undefined;
  const waiting = new Promise<StagecraftEvent>((resolve) => {
    const subscription = subscribeRunEvents(host.ports.bus, 'stagecraft', runId, (e) => {
      if (e.type === 'ApprovalRequested' || e.type === 'RunCompleted' || e.type === 'RunFailed') resolve(e);
    });
    stop = () => subscription.unsubscribe();
  });
  const request: RequestOf<'conversation.send'> = {
    runId,
    message: 'Write notes about this project',
    userMode: 'agent',
    reasoningEnabled: true,
    projectRoot: project,
    approve: 'writes',
  };
  await host.ports.requester.request('conversation.send', request);
  const event = await waiting;
  stop();
  return event;
}

describe('run.cancel, embedded', () => {
  let embedded: EmbeddedServices;

  beforeAll(async () => {
    embedded = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-cancel-',
      readme: '# Sample\nA tiny project.\n',
    });
  });
  afterAll(() => embedded?.close());

  it('cancels a run that waits for an approval: who and why recorded, nothing decided after, an answer is a conflict', async () => {
    const { host, project } = embedded;
    const runId = newRunId();
    const asked = await sendUntilWaiting(host, project, runId);
    const approvalId = (asked.data as { approvalId: string }).approvalId;
    const reply = await host.ports.requester.request('run.cancel', { runId, by: 'cli', reason: 'not today' });
    expect(reply).toEqual({ runId, outcome: 'cancelled', status: 'cancelled' });
    const stored = await storedOf(host, runId);
    // The call that waited for a person was never made: closed in the same commit, so nothing is left open.
    expect(stored.slice(-2)).toMatchObject([
      { type: 'RunCancelled', data: { by: 'cli', reason: 'not today' } },
      { type: 'ToolCallRejected', data: { tool: 'write_file', code: 'CONFLICT' } },
    ]);
    expect(auditRun(stored)).toEqual([]);
    expect(replayRun(stored, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    const { run } = await host.ports.requester.request('conversation.run.get', { runId });
    expect(run).toMatchObject({ status: 'cancelled', pendingApproval: null });

    await expect(host.ports.requester.request('approval.answer', { id: runId, approvalId, decision: 'approve' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await host.ports.requester.request('run.cancel', { runId, by: 'cli' })).toEqual({
      runId,
      outcome: 'ended',
      status: 'cancelled',
    });
    expect((await storedOf(host, runId)).length).toBe(stored.length);
  });

  it('leaves a completed run as it ended; bad and unknown requests are refused and append nothing', async () => {
    const { host, project } = embedded;
    const runId = newRunId();
    const { end } = await runToEnd(host, {
      runId,
      message: 'Write notes',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });
    expect(end.type).toBe('RunCompleted');
    const before = await storedOf(host, runId);
    expect(await host.ports.requester.request('run.cancel', { runId, by: 'user', reason: 'too late' })).toEqual({
      runId,
      outcome: 'ended',
      status: 'completed',
    });
    const bad = [
      { runId, by: 'cli', reason: 'r'.repeat(501) },
      { runId, by: 'nobody' },
      { runId, by: 'cli', also: 'this' },
    ] as unknown as RequestOf<'run.cancel'>[];
    for (const request of bad)
      await expect(host.ports.requester.request('run.cancel', request)).rejects.toMatchObject({
        code: 'VALIDATION',
        issues: [expect.anything()],
      });
    await expect(host.ports.requester.request('run.cancel', { runId: 'no-such-run', by: 'cli' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await storedOf(host, runId)).toHaveLength(before.length);
  });
});

/** The model takes 30 s over the acting step: long enough that only an aborted call ends sooner. */
const slowModel = (request: RecordedRequest): ScriptedReply =>
  request.stage === 'warmup' ? { content: `${macroReasoning()}\nI will think long.` } : { content: 'late', delayMs: 30_000 };

describe('run.cancel during a model call, embedded', () => {
  let embedded: EmbeddedServices;

  beforeAll(async () => {
    embedded = await startEmbedded({ script: slowModel, dirPrefix: 'stagecraft-cancel-model-', readme: '# Sample\n' });
  });
  afterAll(() => embedded?.close());

  it('aborts the call in flight and records its request, without an answer', async () => {
    const { host, project, server } = embedded;
    const runId = newRunId();
    await host.ports.requester.request('conversation.send', {
      runId,
      message: 'Think about it',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });
    await eventually(
      async () => (server.requests.some((r) => r.stage === 'act' && r.headers['x-stagecraft-run-id'] === runId) ? true : undefined),
      'the acting request to reach the model',
    );
    // A notice is only a hint: one that the log does not bear out stops nothing (anyone on the bus may send one).
    const { registry } = host.running.dependenciesOf<Conversation>('conversation');
    const before = await storedOf(host, runId);
    expect(await registry.noticeCancelled(runId)).toBe(false);
    host.ports.bus.publish('stagecraft.run.cancelled', 'not json');
    host.ports.bus.publish('stagecraft.run.cancelled', JSON.stringify({ runId, more: 'fields' }));
    host.ports.bus.publish('stagecraft.tool.cancel', JSON.stringify({ callId: '../../etc' }));
    expect(await storedOf(host, runId)).toHaveLength(before.length);

    expect(await host.ports.requester.request('run.cancel', { runId, by: 'operator', reason: 'stop thinking' })).toMatchObject({
      outcome: 'cancelled',
    });
    const stored = await eventually(async () => {
      const log = await storedOf(host, runId);
      return log.at(-1)?.type === 'ModelRequested' ? log : undefined;
    }, 'the aborted request to be recorded');
    const types = stored.map((e) => e.type);
    expect(types.slice(types.indexOf('RunCancelled'))).toEqual(['RunCancelled', 'ModelRequested']);
    expect(stored.at(-1)).toMatchObject({ data: { stage: 'act' } });
    expect(replayRun(stored, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
  });
});
