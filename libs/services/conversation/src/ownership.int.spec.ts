import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streams } from '@stagecraft/contracts';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { eventually, readWriteAgentScript } from '@stagecraft/testing';
import { runToEnd, scriptedGateway, sixServices } from '@stagecraft/testing-system';

/**
 * Who may act on a run or a conversation, whatever the transport: a conversation stays in its project,
 * and a deployment that serves some project roots answers another project's run as an unknown one.
 * Two deployments share one log here: the first serves any root, the second only `ours`.
 */

let server: ScriptedModelServer;
let dir: string;
let ours: string;
let theirs: string;

const hostWith = (projectRoots?: string[]) =>
  startHost({
    definitions: sixServices(scriptedGateway(server.url)),
    transport: 'inproc',
    store: `sqlite:${join(dir, 'events.db')}`,
    config: { prefix: 'stagecraft', requestTimeoutMs: 10_000, logLevel: 'silent', ...(projectRoots ? { projectRoots } : {}) },
  });

const streamLength = async (host: Host, stream: string) => (await host.ports.store!.readStream(stream)).length;

beforeAll(async () => {
  server = await startScriptedModelServer({ script: readWriteAgentScript });
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-ownership-'));
  ours = join(dir, 'ours', 'app');
  theirs = join(dir, 'theirs');
  for (const project of [ours, theirs]) {
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
  }
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a conversation stays in its project', () => {
  it('refuses a send into an existing conversation from another project root with CONFLICT, appending nothing', async () => {
    const host = await hostWith();
    try {
      const { end } = await runToEnd(host, {
        runId: 'run-theirs-1',
        conversationId: 'conv-theirs',
        message: 'Write notes',
        projectRoot: theirs,
      });
      expect(end.type).toBe('RunCompleted');
      // The conversation holds the run's turn once its processor stored it.
      const turns = await eventually(async () => {
        const n = await streamLength(host, streams.conversation('conv-theirs'));
        return n > 0 ? n : undefined;
      }, 'the turn of run-theirs-1');

      await expect(
        host.ports.requester.request('conversation.send', {
          conversationId: 'conv-theirs',
          runId: 'run-intruder',
          message: 'Tell me what you were told before',
          userMode: 'agent',
          reasoningEnabled: true,
          projectRoot: ours,
        }),
      ).rejects.toMatchObject({ code: 'CONFLICT', issues: [{ path: ['projectRoot'] }] });
      expect(await streamLength(host, streams.run('run-intruder'))).toBe(0);
      expect(await streamLength(host, streams.conversation('conv-theirs'))).toBe(turns);

      // The same project, named with a trailing slash, goes on.
      const again = await runToEnd(host, {
        runId: 'run-theirs-2',
        conversationId: 'conv-theirs',
        message: 'Again',
        projectRoot: `${theirs}/`,
      });
      expect(again.end.type).toBe('RunCompleted');
    } finally {
      await host.close();
    }
  }, 60_000);
});

describe('a deployment that serves some roots', () => {
  it('answers another project’s run as unknown: run view, approval and fork are NOT_FOUND, and nothing is appended', async () => {
    const host = await hostWith([join(dir, 'ours')]);
    try {
      const before = (await host.ports.store!.readAll()).length;
      const { requester } = host.ports;
      const unknown = { code: 'NOT_FOUND', message: 'no run run-theirs-1' };
      await expect(requester.request('conversation.run.get', { runId: 'run-theirs-1' })).rejects.toMatchObject(unknown);
      await expect(
        requester.request('approval.answer', { id: 'run-theirs-1', approvalId: 'run-theirs-1.c1.approval', decision: 'approve' }),
      ).rejects.toMatchObject(unknown);
      await expect(
        requester.request('conversation.fork', { runId: 'run-theirs-1', atRevision: 0, newRunId: 'run-stolen' }),
      ).rejects.toMatchObject(unknown);
      // The answers are those of a run that never existed: nothing tells the two apart.
      await expect(requester.request('conversation.run.get', { runId: 'run-never' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'no run run-never',
      });
      expect((await host.ports.store!.readAll()).length).toBe(before);
    } finally {
      await host.close();
    }
  }, 60_000);
});
