import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore } from '@stagecraft/event-store';
import { connectNatsBus, createInprocBus } from '@stagecraft/messaging';
import { startScriptedModelServer } from '@stagecraft/scripted-model';
import { eventually, freePort, startNatsServer } from '@stagecraft/testing';
import { checkDependencies, checkModelEndpoint, checkNats, checkStore, dependencyTargets, redactAddress } from './readiness';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-readiness-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dependency checks against real dependencies', () => {
  it('reads a SQLite store, and reports a KurrentDB that nothing listens for as down, naming its address', async () => {
    const sqlite = openEventStore(`sqlite:${join(dir, 'events.db')}`);
    const port = await freePort();
    const kurrent = openEventStore(`kurrentdb://127.0.0.1:${port}?tls=false`);
    try {
      const up = await checkStore(sqlite, 'sqlite:events.db');
      expect(up).toMatchObject({ name: 'store', ok: true, required: true, address: 'sqlite:events.db' });
      const down = await checkStore(kurrent, `kurrentdb://127.0.0.1:${port}?tls=false`, 3_000);
      expect(down).toMatchObject({ name: 'store', ok: false, required: true, address: `kurrentdb://127.0.0.1:${port}?tls=false` });
      expect(down.detail).toBeTruthy();
      expect(down.latencyMs).toBeGreaterThanOrEqual(0);
    } finally {
      await Promise.all([sqlite.close(), kurrent.close()]);
    }
  });

  it('measures a NATS round trip, and reports a server that has gone as down within the check timeout', async () => {
    let nats = await startNatsServer();
    const bus = await connectNatsBus(nats.url, 'readiness-test');
    try {
      expect(await checkNats(bus, nats.url)).toMatchObject({ name: 'nats', ok: true, required: true, address: nats.url });
      await nats.stop();
      const down = await checkNats(bus, nats.url, 500);
      expect(down).toMatchObject({ name: 'nats', ok: false, required: true, address: nats.url });
      expect(down.detail).toBeTruthy();
      // Back where the client looks for it: the check is up again, and the connection can drain and close.
      nats = await startNatsServer({ port: nats.port });
      await eventually(async () => ((await checkNats(bus, nats.url, 500)).ok ? true : undefined), 'NATS to answer again');
    } finally {
      await bus.close();
      await nats.stop();
    }
  });

  it('asks the model endpoint for its models as a warning only, and caches the answer for a few seconds', async () => {
    const model = await startScriptedModelServer();
    const closedPort = await freePort();
    try {
      const endpoint = { baseURL: model.url, apiKey: 'k' };
      expect(await checkModelEndpoint(endpoint)).toMatchObject({ name: 'model', ok: true, required: false, address: model.url });
      await checkModelEndpoint(endpoint);
      expect(model.requests.filter((r) => r.path === '/models')).toHaveLength(1);
      expect(model.requests[0].headers['authorization']).toBe('Bearer k');
      const unreachable = await checkModelEndpoint({ baseURL: `http://127.0.0.1:${closedPort}/v1`, apiKey: null });
      expect(unreachable).toMatchObject({ name: 'model', ok: false, required: false, address: `http://127.0.0.1:${closedPort}/v1` });
      expect(unreachable.detail).toContain('ECONNREFUSED');
    } finally {
      await model.close();
    }
  });

  it('checks only what a process depends on: no NATS in process, the model only where conversation or qa runs', async () => {
    const store = openEventStore('memory:');
    const bus = createInprocBus();
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    try {
      const policyOnly = dependencyTargets({
        services: [{ name: 'policy', usesStore: false }],
        store,
        storeAddress: 'memory:',
        bus,
        natsAddress: undefined,
        env,
      });
      expect(await checkDependencies(policyOnly)).toEqual([]);
      const memory = dependencyTargets({
        services: [{ name: 'memory', usesStore: true }],
        store,
        storeAddress: 'memory:',
        bus,
        natsAddress: undefined,
        env,
      });
      expect((await checkDependencies(memory)).map((c) => [c.name, c.ok])).toEqual([['store', true]]);
      const qa = dependencyTargets({
        services: [{ name: 'qa', usesStore: false }],
        store,
        storeAddress: 'memory:',
        bus,
        natsAddress: undefined,
        env,
      });
      expect(qa.model).toEqual({ baseURL: 'http://127.0.0.1:9/v1', apiKey: null });
    } finally {
      await Promise.all([store.close(), bus.close()]);
    }
  });

  it('leaves credentials out of the addresses it reports', () => {
    expect(redactAddress('kurrentdb://admin:changeit@db:2113?tls=false')).toBe('kurrentdb://db:2113?tls=false');
    expect(redactAddress('nats://u:p@a:4222,nats://b:4222')).toBe('nats://a:4222,nats://b:4222');
    expect(redactAddress('sqlite:.stagecraft/events.db')).toBe('sqlite:.stagecraft/events.db');
  });
});
