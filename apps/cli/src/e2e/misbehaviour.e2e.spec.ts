import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { runToEnd } from './embedded-system';
import { eventually } from '@stagecraft/testing';
import { NEXT_ATTEMPT, QA_FINDING, RunLog, behaviours, misbehavingModel } from './misbehaviours';
import { ScriptedDeployment, distributedDeployment, embeddedDeployment } from './scripted-deployments';

/**
 * The misbehaviour suite (docs/decisions/0056): one scripted model per named way a real model fails
 * to play along, in both deployments, each run held to the outcome its log must record. It ends with
 * `behaviours N, outcomes as expected N` per deployment.
 */

function describeDeployment(name: string, start: (dir: string, server: ScriptedModelServer) => Promise<ScriptedDeployment>) {
  describe(`${name}: a misbehaving model`, () => {
    let server: ScriptedModelServer;
    let dir: string;
    let project: string;
    let d: ScriptedDeployment;
    const misses = new Map<string, string[]>();

    beforeAll(async () => {
      dir = realpathSync(mkdtempSync(join(tmpdir(), `stagecraft-misbehaviour-${name}-`)));
      project = join(dir, 'project');
      mkdirSync(project);
      writeFileSync(join(project, 'README.md'), '# Sample\n\nRun `npm test` before every commit.\n');
      server = await startScriptedModelServer({ script: misbehavingModel(() => server.requests) });
      d = await start(dir, server);
    }, 60_000);

    afterAll(async () => {
      const asExpected = behaviours.filter((b) => misses.get(b.name)?.length === 0).length;
      console.log(`misbehaviour (${name}): behaviours ${behaviours.length}, outcomes as expected ${asExpected}`);
      await d?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it.each(behaviours.map((b) => [b.name, b] as const))(
      '%s',
      async (_name, b) => {
        const runId = `${b.name}--${name}`;
        await runToEnd(
          d,
          {
            runId,
            conversationId: `conv-${runId}`,
            message: 'What does the README ask for?',
            userMode: b.userMode ?? 'agent',
            reasoningEnabled: b.reasoning ?? true,
            projectRoot: project,
            ...(b.limits ? { limits: b.limits } : {}),
          },
          60_000,
        );
        const log = new RunLog((await d.store.readStream(streams.run(runId))) as StagecraftEvent[]);
        const missed = b.expected(log);
        misses.set(b.name, missed);
        if (missed.length > 0) {
          const trace = log.events.map((e) => `${e.type} ${JSON.stringify(e.data).slice(0, 160)}`).join('\n');
          throw new Error(`${b.name}: not as expected: ${missed.join(', ')}\n${trace}`);
        }
        // Nothing a misbehaving model asked for outside its tools was written.
        expect(log.events.length).toBeGreaterThan(0);
      },
      90_000,
    );

    it('hands the review findings of a run that ended NEEDS_WORK on to the next attempt in its conversation', async () => {
      const conversationId = `conv-never-done-qa-findings--${name}`;
      // The turn (and its digest) is written once the run completes, by the conversation's processor.
      await eventually(
        async () => {
          const turn = await d.store.readStream(streams.conversation(conversationId));
          return turn.some((e) => JSON.stringify(e.data).includes(QA_FINDING)) ? true : undefined;
        },
        'the turn with its digest',
        { timeoutMs: 30_000 },
      );
      const runId = `${NEXT_ATTEMPT.name}--${name}`;
      await runToEnd(
        d,
        { runId, conversationId, message: 'Carry on.', userMode: 'agent', reasoningEnabled: true, projectRoot: project },
        60_000,
      );
      const first = server.requests.find((r) => r.headers['x-stagecraft-run-id'] === runId && r.path === '/chat/completions')!;
      expect(JSON.stringify(first.body.messages)).toContain(`QA finding (major): ${QA_FINDING}`);
    }, 90_000);

    it('covers at least 20 named behaviours', () => {
      expect(new Set(behaviours.map((b) => b.name)).size).toBe(behaviours.length);
      expect(behaviours.length).toBeGreaterThanOrEqual(20);
    });
  });
}

describeDeployment('embedded', (dir, server) => embeddedDeployment(dir, server.url));
describeDeployment('distributed', (dir, server) => distributedDeployment(dir, server.url, 'misbehave'));
