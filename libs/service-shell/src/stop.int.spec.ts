import 'reflect-metadata';
import { createInprocBus } from '@stagecraft/messaging';
import { composePorts } from './compose-ports';
import { defineService } from './define-service';
import { embeddingProcess } from './embedded';
import { healthReply } from './health';
import type { ShellPorts } from './ports';
import { RunningServices, startServices } from './start-services';

/** A handler that answers only when the test lets it: a request in flight for as long as the test likes. */
let entered: () => void = () => undefined;
let release: () => void = () => undefined;

const held = defineService({
  name: 'policy',
  usesStore: false,
  handlers: {
    async 'qa.health'(_request, ports) {
      await new Promise<void>((resolve) => {
        release = resolve;
        entered();
      });
      return healthReply('qa', ports, false);
    },
  },
});

async function start(): Promise<{ running: RunningServices; ports: ShellPorts; inFlight: Promise<unknown> }> {
  const ports = composePorts(
    createInprocBus(),
    null,
    { prefix: 'stop', requestTimeoutMs: 2_000, logLevel: 'silent' },
    {},
    embeddingProcess(),
    'policy',
  );
  const running = await startServices([held], ports);
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const inFlight = ports.requester.request('qa.health', {}).then(
    (reply) => ({ reply }),
    (error: { code?: string }) => ({ error: error.code }),
  );
  await reached;
  return { running, ports, inFlight };
}

describe('stopping services with a request in flight', () => {
  it('lets the request finish within the grace, answers it, and takes no new one', async () => {
    const { running, ports, inFlight } = await start();
    const abandoned: string[][] = [];
    const closing = running.close({ graceMs: 60_000, onAbandoned: (subjects) => abandoned.push(subjects) });
    // Taken off the bus at once: a new request finds nobody.
    await expect(ports.requester.request('qa.health', {}, { timeoutMs: 500 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    release();
    await closing;
    expect(await inFlight).toMatchObject({ reply: { service: 'qa' } });
    expect(abandoned).toEqual([]);
  });

  it('abandons a request that outlasts the grace, naming its subject', async () => {
    const { running, inFlight } = await start();
    const abandoned: string[][] = [];
    await running.close({ graceMs: 20, onAbandoned: (subjects) => abandoned.push(subjects) });
    expect(abandoned).toEqual([['qa.health']]);
    // Abandoned means no longer waited for, not killed: in process, it still answers if it gets the chance.
    release();
    expect(await inFlight).toMatchObject({ reply: { service: 'qa' } });
  });
});
