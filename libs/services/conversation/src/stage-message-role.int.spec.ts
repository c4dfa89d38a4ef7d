import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { ScriptedModelServer } from '@stagecraft/scripted-model';
import { Host } from '@stagecraft/service-shell';
import { readWriteAgentScript } from '@stagecraft/testing';
import { runToEnd, startEmbedded } from '@stagecraft/testing-system';
import { restoreRequests } from './prompt-bodies';

type Message = { role: string; content: string };

/**
 * `STAGECRAFT_STAGE_MESSAGE_ROLE=user` (docs/decisions/0052): for endpoints that accept a system message
 * only first, the stage's part of each prompt goes last as a tagged user message; the run works as before.
 */
describe('the stage part sent as a user message, embedded', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let project: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, host, project, close } = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-stage-role-',
      readme: '# Sample\nA tiny project.\n',
      conversation: { stageMessageRole: 'user' },
    }));
  });

  afterAll(() => close?.());

  it('sends one system message, first, and the stage part last in <stage_instructions>; the log restores it', async () => {
    const runId = 'run-stage-role';
    await runToEnd(host, { runId, message: 'Write notes about this project', projectRoot: project });
    const stored = (await host.ports.store!.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
    expect(stored.at(-1)?.type).toBe('RunCompleted');
    const sent = server.requests.filter(
      (r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId && r.stage !== 'qa_review',
    );
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const r of sent) {
      const messages = r.body.messages as Message[];
      expect(messages.map((m) => m.role).filter((role) => role === 'system')).toEqual(['system']);
      expect(messages[0].role).toBe('system');
      expect(messages.at(-1)).toMatchObject({
        role: 'user',
        content: expect.stringMatching(/^<stage_instructions>\n[\s\S]*<\/stage_instructions>$/),
      });
    }
    expect(String((sent[0].body.messages as Message[]).at(-1)?.content)).toContain('## Stage: warmup');
    const restored = await restoreRequests(host.ports.store!, runId);
    expect(restored.map((r) => r.messages.at(-1))).toEqual(sent.map((r) => (r.body.messages as Message[]).at(-1)));
  });
});
