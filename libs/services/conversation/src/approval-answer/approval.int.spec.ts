import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RequestOf, StagecraftEvent, runEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { auditRun } from '@stagecraft/run';
import { RecordedRequest } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { readWriteAgentScript } from '@stagecraft/testing';
import { EmbeddedServices, followRun, scriptedGateway, sixServices, startEmbedded } from '@stagecraft/testing-system';

/**
 * Runs whose writes wait for a person (`approve: 'writes'`), embedded: the run stops before its write,
 * an approval lets it write and finish, a denial is told to the model, a stray answer changes nothing,
 * and a waiting run survives a restart.
 */

const README = '# Sample\nA tiny project.\n';
let sequence = 0;
const newRunId = () => `run-approval-${++sequence}`;

/** Sends a message with approvals on and waits until the run asks for one (or, unexpectedly, ends). */
async function sendUntilWaiting(host: Host, project: string, runId: string): Promise<StagecraftEvent> {
  let unsubscribe: (() => void) | undefined;
  const waiting = new Promise<StagecraftEvent>((resolve) => {
    const subscription = subscribeRunEvents(host.ports.bus, 'stagecraft', runId, (e) => {
      if (e.type === 'ApprovalRequested' || e.type === 'RunCompleted' || e.type === 'RunFailed') resolve(e);
    });
    unsubscribe = () => subscription.unsubscribe();
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
  unsubscribe?.();
  return event;
}

const answer = (host: Host, request: RequestOf<'approval.answer'>) =>
  followRun(host, request.id, () => host.ports.requester.request('approval.answer', request));

const storedOf = async (host: Host, runId: string) => readEvents(host.ports.store!, streams.run(runId), runEvents);

const requestsOf = (requests: readonly RecordedRequest[], runId: string) =>
  requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);

describe('approvals, embedded', () => {
  let embedded: EmbeddedServices;

  beforeAll(async () => {
    embedded = await startEmbedded({ script: readWriteAgentScript, dirPrefix: 'stagecraft-approval-', readme: README });
  });
  afterAll(() => embedded?.close());

  beforeEach(() => rmSync(join(embedded.project, 'NOTES.md'), { force: true }));

  it('stops before the write; an approval makes it write and finish', async () => {
    const { host, project } = embedded;
    const runId = newRunId();
    const asked = await sendUntilWaiting(host, project, runId);
    expect(asked).toMatchObject({
      type: 'ApprovalRequested',
      data: { kind: 'tool_call', tool: 'write_file', summary: 'write_file NOTES.md' },
    });
    expect(existsSync(join(project, 'NOTES.md'))).toBe(false);
    const { run } = await host.ports.requester.request('conversation.run.get', { runId });
    expect(run).toMatchObject({ status: 'running', pendingApproval: { approvalId: (asked.data as { approvalId: string }).approvalId } });
    expect(run.pendingApproval?.requestedAt).not.toBe('');

    const { reply, end } = await answer(host, { id: runId, approvalId: run.pendingApproval!.approvalId, decision: 'approve' });
    expect(reply).toMatchObject({ id: runId, target: 'run', decision: 'approve' });
    expect(end).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('Sample project notes.\n');
    const stored = await storedOf(host, runId);
    expect(stored.map((e) => e.type)).toContain('ApprovalGiven');
    expect(auditRun(stored)).toEqual([]);
    expect((await host.ports.requester.request('conversation.run.get', { runId })).run.pendingApproval).toBeNull();
  });

  it('a denial: the file is never written, the model reads the refusal as the call’s result, and the run finishes', async () => {
    const { host, project, server } = embedded;
    const runId = newRunId();
    const asked = await sendUntilWaiting(host, project, runId);
    const approvalId = (asked.data as { approvalId: string }).approvalId;
    const { end } = await answer(host, { id: runId, approvalId, decision: 'deny', reason: 'keep the folder clean' });
    expect(end.type).toBe('RunCompleted');
    expect(existsSync(join(project, 'NOTES.md'))).toBe(false);
    const after = requestsOf(server.requests, runId).find((r) =>
      (r.body.messages as { role: string; content?: string }[]).some((m) => m.role === 'tool' && String(m.content).includes('denied')),
    );
    const refusal = (after?.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool' && m.content.includes('denied'),
    );
    expect(refusal?.content).toContain('the user denied this write_file call: keep the folder clean');
    expect(refusal?.content).toContain('do not retry');
    const stored = await storedOf(host, runId);
    expect(stored.map((e) => e.type)).toEqual(expect.arrayContaining(['ApprovalDenied', 'ToolCallRejected']));
    expect(stored.some((e) => e.type === 'ToolCallCompleted' && e.data.tool === 'write_file')).toBe(false);
  });

  it('an answer for another approval, or when nothing is pending, is a conflict and appends nothing; an unknown run is not found', async () => {
    const { host, project } = embedded;
    const runId = newRunId();
    const asked = await sendUntilWaiting(host, project, runId);
    const approvalId = (asked.data as { approvalId: string }).approvalId;
    const before = (await storedOf(host, runId)).length;
    // The id is required: an answer that does not say what it answers is refused at the edge.
    const bare = { id: runId, decision: 'approve' } as unknown as RequestOf<'approval.answer'>;
    await expect(host.ports.requester.request('approval.answer', bare)).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [expect.objectContaining({ path: ['approvalId'] })],
    });
    await expect(
      host.ports.requester.request('approval.answer', { id: runId, approvalId: 'not-this-one', decision: 'approve' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await storedOf(host, runId)).toHaveLength(before);
    await answer(host, { id: runId, approvalId, decision: 'approve' });
    const finished = (await storedOf(host, runId)).length;
    await expect(host.ports.requester.request('approval.answer', { id: runId, approvalId, decision: 'deny' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await storedOf(host, runId)).toHaveLength(finished);
    const nobody = { id: 'run-nobody', approvalId: 'run-nobody.c1.approval', decision: 'approve' } as const;
    await expect(host.ports.requester.request('approval.answer', nobody)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('approvals across a restart, embedded', () => {
  it('a run that waits still waits after the system restarts on the same store, and finishes once approved', async () => {
    const embedded = await startEmbedded({ script: readWriteAgentScript, dirPrefix: 'stagecraft-approval-restart-', readme: README });
    const { server, dir, project } = embedded;
    let restarted: Host | undefined;
    try {
      const runId = newRunId();
      await sendUntilWaiting(embedded.host, project, runId);
      const before = (await storedOf(embedded.host, runId)).length;
      await embedded.host.close();

      restarted = await startHost({
        definitions: sixServices(scriptedGateway(server.url)),
        transport: 'inproc',
        store: `sqlite:${join(dir, 'events.db')}`,
        config: { prefix: 'stagecraft', requestTimeoutMs: 10_000, logLevel: 'silent' },
      });
      // Start-up resumed every unfinished run: this one is left waiting, with nothing appended.
      const { run } = await restarted.ports.requester.request('conversation.run.get', { runId });
      expect(run).toMatchObject({ status: 'running', pendingApproval: { tool: 'write_file' } });
      expect(await storedOf(restarted, runId)).toHaveLength(before);
      expect(existsSync(join(project, 'NOTES.md'))).toBe(false);

      const { end } = await answer(restarted, { id: runId, approvalId: run.pendingApproval!.approvalId, decision: 'approve' });
      expect(end).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
      expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('Sample project notes.\n');
    } finally {
      await restarted?.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
