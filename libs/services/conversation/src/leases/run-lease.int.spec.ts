import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kvm } from '@nats-io/kv';
import { streams } from '@stagecraft/contracts';
import { RecordedEvent } from '@stagecraft/event-store';
import { MessageBus, connectNatsBus, natsConnectionOf } from '@stagecraft/messaging';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, readWriteAgentScript, startNatsServer } from '@stagecraft/testing';
import { scriptedGateway, sixServices } from '@stagecraft/testing-system';

/**
 * A replica that loses a run's lease while it waits for the model must not append what the model
 * answers: the run is someone else's now. Here "someone else" is the test, which takes the expired
 * lease over in the bucket the replicas share; once it lets go, the replica's takeover sweep takes the
 * run again and drives it to its end, asking the model again for the step whose answer it dropped.
 */
describe('a run lease lost mid-step (real nats-server, NATS KV)', () => {
  const prefix = 'leaselost';
  const runId = 'lease-lost-1';
  let nats: NatsServerHandle;
  let model: ScriptedModelServer;
  let dir: string;
  let host: Host;
  let client: MessageBus;
  let slowActs = 1;

  beforeAll(async () => {
    nats = await startNatsServer();
    // The first act step answers slowly: long enough for a few renewals to find the lease gone.
    model = await startScriptedModelServer({
      script: (request: RecordedRequest): ScriptedReply => {
        const reply = readWriteAgentScript(request) as ScriptedReply;
        return request.stage === 'act' && slowActs-- > 0 ? { ...reply, delayMs: 3_000 } : reply;
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-lease-lost-'));
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(dir, 'project', 'README.md'), '# Sample\nA tiny project.\n');
    host = await startHost({
      definitions: sixServices(scriptedGateway(model.url)),
      transport: 'nats',
      natsUrl: nats.url,
      store: `sqlite:${join(dir, 'events.db')}`,
      config: { prefix, requestTimeoutMs: 10_000, logLevel: 'silent', projectRoots: [dir] },
      env: { STAGECRAFT_LEASE_TTL_MS: '1500' },
    });
    client = await connectNatsBus(nats.url, `${prefix}-test`);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await host?.close();
    await model?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const runEvents = async () => (await host.ports.store!.readStream(streams.run(runId))) as RecordedEvent[];

  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  }

  it('appends nothing while the lease is another owner’s, then finishes the run once it can take the lease again', async () => {
    const kv = await new Kvm(natsConnectionOf(client)!).open(`${prefix}_leases`);
    const key = `run.${runId}`;
    await host.ports.requester.request('conversation.send', {
      runId,
      message: 'Write notes about this project',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: join(dir, 'project'),
    });
    await until('the slow act request', () => (model.requests.some((r) => r.stage === 'act') ? true : undefined));
    const owner = (await kv.get(key))?.string();
    expect(owner).toContain(`:${process.pid}:`);

    // The lease is taken from under the replica, as a replica that found it expired would.
    await kv.purge(key);
    let revision = await kv.create(key, 'another-replica');
    // Renewed like a live owner's, so it does not expire while the test holds it.
    const renewing = setInterval(
      () =>
        void kv.update(key, 'another-replica', revision).then(
          (next) => (revision = next),
          () => undefined,
        ),
      200,
    );
    const whenTaken = (await runEvents()).length;
    // The slow answer arrives (three seconds after it was asked for) while the lease is not the replica's.
    await sleep(3_500);
    clearInterval(renewing);
    expect((await runEvents()).length).toBe(whenTaken);

    await kv.purge(key);
    const events = await until('the run to end', async () => {
      const all = await runEvents();
      return all.at(-1)?.type === 'RunCompleted' || all.at(-1)?.type === 'RunFailed' ? all : undefined;
    });
    expect(events.at(-1)?.type).toBe('RunCompleted');
    // The dropped answer was asked for again: at least one model request more than the log has answers
    // (more when a loaded machine delayed a renewal past the TTL: a lease lost on its own, handled alike).
    const answered =
      events.filter((e) => e.type === 'ModelResponded' || e.type === 'ModelCallFailed').length +
      events
        .filter((e) => e.type === 'QAReportIssued')
        .reduce((n, e) => n + ((e.data as { modelCalls?: unknown[] }).modelCalls ?? []).length, 0);
    expect(model.requests.filter((r) => r.headers['x-stagecraft-run-id'] === runId).length).toBeGreaterThan(answered);
  }, 60_000);
});
