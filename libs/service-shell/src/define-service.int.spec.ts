import 'reflect-metadata';
import { StagecraftError } from '@stagecraft/contracts';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { defineService } from './define-service';
import { startHost } from './embedded';

const config = { prefix: 'table', requestTimeoutMs: 5_000, logLevel: 'silent' as const };
const request = { workflowId: 'review', completedSteps: [] };

/** A service whose every step writes to `log`, so a test can see what ran, with what, and in which order. */
function recordingService(log: string[]) {
  return defineService({
    name: 'prompt-assembly',
    usesStore: false,
    start: (ports) => {
      log.push('start');
      return { greeting: 'built by start', requester: ports.requester };
    },
    handlers: {
      'workflow.next': (req, deps, context) => {
        log.push(`handled ${req.workflowId} with "${deps.greeting}" as ${context.correlationId}`);
        if (req.workflowId === 'refused')
          throw new StagecraftError('CONFLICT', 'refused by the handler', [{ path: ['workflowId'], message: 'no' }]);
        return { step: null, guidance: { prompt: '' }, isComplete: true };
      },
    },
    processors: {
      first: () => {
        log.push('first started');
        return { stop: () => void log.push('first stopped') };
      },
      async second(deps) {
        // Handlers are served only once every processor has started.
        const code = await deps.requester.request('workflow.next', request, { timeoutMs: 500 }).then(
          () => 'answered',
          (error: { code?: string }) => error.code,
        );
        log.push(`second started (a request meanwhile: ${code})`);
        return { stop: () => void log.push('second stopped') };
      },
      nothing: () => undefined,
    },
    stop: (deps) => void log.push(`stop "${deps.greeting}"`),
  });
}

describe('a service defined as a table', () => {
  it('starts, serves and stops in order: start, processors in turn, handlers, processors backwards, stop', async () => {
    const log: string[] = [];
    const host = await startHost({ definitions: [recordingService(log)], transport: 'inproc', store: 'memory:', config });
    expect(log).toEqual(['start', 'first started', 'second started (a request meanwhile: UNAVAILABLE)']);
    expect(host.running.dependenciesOf<{ greeting: string }>('prompt-assembly').greeting).toBe('built by start');

    await host.ports.requester.request('workflow.next', request, { correlationId: 'corr-1' });
    await host.close();
    expect(log.slice(3)).toEqual([
      'handled review with "built by start" as corr-1',
      'second stopped',
      'first stopped',
      'stop "built by start"',
    ]);
  });

  it('answers a handler’s coded error as it is, and refuses a bad request without calling the handler', async () => {
    const log: string[] = [];
    const host = await startHost({ definitions: [recordingService(log)], transport: 'inproc', store: 'memory:', config });
    try {
      await expect(host.ports.requester.request('workflow.next', { ...request, workflowId: 'refused' })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: 'refused by the handler',
        issues: [{ path: ['workflowId'], message: 'no' }],
      });
      const handled = log.length;
      const reply = await host.ports.bus.request('table.workflow.next', JSON.stringify({ ...request, workflowId: 7 }), {
        timeoutMs: 5_000,
      });
      expect(JSON.parse(reply.body)).toMatchObject({
        ok: false,
        error: { code: 'VALIDATION', issues: [expect.objectContaining({ path: ['workflowId'] })] },
      });
      expect(log.length).toBe(handled);
    } finally {
      await host.close();
    }
  });

  it('refuses a table naming a subject that has no contract', () => {
    expect(() => defineService({ name: 'policy', usesStore: false, handlers: { 'policy.guess': () => ({}) } as never })).toThrow(
      "policy: 'policy.guess' is not a subject in @stagecraft/contracts",
    );
  });

  it('does not start when `start` throws, and says why', async () => {
    const failing = defineService({
      name: 'policy',
      usesStore: false,
      start: () => {
        throw new StagecraftError('VALIDATION', 'invalid configuration: STAGECRAFT_EXAMPLE: a number');
      },
      handlers: {},
    });
    await expect(startHost({ definitions: [failing], transport: 'inproc', store: 'memory:', config })).rejects.toThrow(
      'invalid configuration: STAGECRAFT_EXAMPLE: a number',
    );
  });
});

describe('replicas of a table service on NATS', () => {
  let nats: NatsServerHandle;
  beforeAll(async () => (nats = await startNatsServer()));
  afterAll(async () => nats?.stop());

  it('share one queue group: each request is answered by exactly one replica', async () => {
    const logs: string[][] = [[], []];
    const hosts = await Promise.all(
      logs.map((log) =>
        startHost({ definitions: [recordingService(log)], transport: 'nats', natsUrl: nats.url, store: 'memory:', config }),
      ),
    );
    try {
      for (let i = 0; i < 20; i++) await hosts[i % 2].ports.requester.request('workflow.next', request, { correlationId: `q-${i}` });
      // The second replica's start asked once too (answered by the first): only the test's requests count.
      const handled = logs.flat().filter((line) => / as q-\d+$/.test(line));
      expect(handled).toHaveLength(20);
      expect(new Set(handled.map((line) => line.split(' as ')[1])).size).toBe(20);
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
  });
});
