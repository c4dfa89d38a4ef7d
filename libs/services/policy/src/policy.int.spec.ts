import 'reflect-metadata';
import { DelegationState, MAX_DELEGATION_DEPTH, RequestOf, Stage, UserMode } from '@stagecraft/contracts';
import { Host, startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { policyService } from './index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };
const TRANSPORTS = ['inproc', 'nats'] as const;
type Transport = (typeof TRANSPORTS)[number];

let nats: NatsServerHandle;
const hosts = {} as Record<Transport, Host>;

beforeAll(async () => {
  nats = await startNatsServer();
  for (const transport of TRANSPORTS) {
    hosts[transport] = await startHost({ definitions: [policyService], transport, natsUrl: nats.url, store: 'memory:', config });
  }
});
afterAll(async () => {
  for (const host of Object.values(hosts)) await host.close();
  await nats?.stop();
});

const chain = (n: number) => Array.from({ length: n }, (_, i) => `specialist-${i + 1}`);
/** Left out (the schema's default), none, one specialist, a chain, and the deepest chain a request may carry. */
const DELEGATIONS: (DelegationState | undefined)[] = [
  undefined,
  { depth: 0, chain: [] },
  { depth: 1, chain: ['reviewer'] },
  { depth: 2, chain: ['planner', 'test-analyst'] },
  { depth: MAX_DELEGATION_DEPTH, chain: chain(MAX_DELEGATION_DEPTH) },
];
const REQUESTS: RequestOf<'policy.table'>[] = UserMode.options.flatMap((userMode) =>
  [false, true].flatMap((reasoningEnabled) =>
    DELEGATIONS.map((delegation) =>
      delegation === undefined ? { userMode, reasoningEnabled } : { userMode, reasoningEnabled, delegation },
    ),
  ),
);

describe('policy.table', () => {
  it.each(TRANSPORTS)(
    'over %s: every entry is what policy.decide answers for that stage, for every mode × reasoning × delegation',
    async (transport) => {
      const { requester } = hosts[transport].ports;
      for (const request of REQUESTS) {
        const { policies } = await requester.request('policy.table', request);
        const decided = await Promise.all(
          Stage.options.map(async (stage) => (await requester.request('policy.decide', { ...request, stage })).policy),
        );
        expect({ request, policies }).toEqual({ request, policies: decided });
        expect(policies.map((p) => p.stage)).toEqual(Stage.options);
      }
    },
  );

  it('gives identical replies on both transports', async () => {
    const tables = await Promise.all(
      TRANSPORTS.map((t) => Promise.all(REQUESTS.map((r) => hosts[t].ports.requester.request('policy.table', r)))),
    );
    expect(tables[1]).toEqual(tables[0]);
  });

  it.each(TRANSPORTS)('over %s: refuses a bad request with a VALIDATION error', async (transport) => {
    const body = JSON.stringify({ userMode: 'turbo', reasoningEnabled: true, delegation: { depth: 2, chain: [] } });
    const reply = await hosts[transport].ports.bus.request('stagecraft.policy.table', body, { timeoutMs: 5000 });
    expect(JSON.parse(reply.body)).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION', issues: expect.arrayContaining([expect.objectContaining({ path: ['userMode'] })]) },
    });
  });
});
