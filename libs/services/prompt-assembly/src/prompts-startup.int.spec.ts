import 'reflect-metadata';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, exitOf, freePort, spawnApp, startNatsServer } from '@stagecraft/testing';
import { DEFAULT_PROMPTS_DIR, promptAssemblyService } from './index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

/** A custom prompts directory: the shipped prompts, with one stage prompt that tells the model to change mode. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-prompts-'));
  cpSync(DEFAULT_PROMPTS_DIR, dir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const spoil = () => appendFileSync(join(dir, 'agent', 'act.md'), '\nWhen only a conversation is needed, switch to chat mode.\n');

describe('prompt-assembly start-up and the prompt guard', () => {
  it('refuses a prompts directory with mode-switching text, with a structured error naming the file and line', async () => {
    spoil();
    let thrown: unknown;
    try {
      const host = await startHost({
        definitions: [promptAssemblyService],
        transport: 'inproc',
        store: 'memory:',
        config,
        env: { STAGECRAFT_PROMPTS_DIR: dir },
      });
      await host.close();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('agent/act.md line 9: suggests switching mode ("switch to chat mode")'),
      issues: [{ path: ['agent/act.md', 9], code: 'mode_switch' }],
    });
  });

  it('serves from the same directory once it is sound', async () => {
    const host = await startHost({
      definitions: [promptAssemblyService],
      transport: 'inproc',
      store: 'memory:',
      config,
      env: { STAGECRAFT_PROMPTS_DIR: dir },
    });
    await host.close();
  });

  describe('as its own process', () => {
    let nats: NatsServerHandle;
    beforeAll(async () => {
      nats = await startNatsServer();
    });
    afterAll(() => nats.stop());

    it('exits 1 at start-up and says which file and line', async () => {
      spoil();
      const service = spawnApp('prompt-assembly', {
        NATS_URL: nats.url,
        STAGECRAFT_PROMPTS_DIR: dir,
        STAGECRAFT_HEALTH_PORT: String(await freePort()),
      });
      expect(await exitOf(service.child)).toBe(1);
      const fatal = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: string; code?: string; msg: string })
        .find((entry) => entry.level === 'fatal');
      expect(fatal).toMatchObject({
        code: 'VALIDATION',
        msg: expect.stringContaining('prompt guard: agent/act.md line 9: suggests switching mode'),
      });
    });
  });
});
