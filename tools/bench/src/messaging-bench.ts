import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';
import { PolicyDecideReply, PolicyDecideRequest } from '@stagecraft/contracts';
import { connectNatsBus, createRequester, serveRequests } from '@stagecraft/messaging';
import { startNatsServer } from '@stagecraft/testing';
import { ms, percentile } from './stats';

export interface MessagingBenchResult {
  rawP50: number;
  rawP99: number;
  messagingP50: number;
  messagingP99: number;
  ratioP50: number;
}

const request: PolicyDecideRequest = { userMode: 'agent', reasoningEnabled: true, stage: 'act', delegation: { depth: 0, chain: [] } };
const reply: PolicyDecideReply = {
  policy: {
    ...request,
    tools: ['read_file', 'list_dir', 'search_code', 'write_file', 'apply_patch', 'run_command'],
    prompts: ['base/system', 'agent/mode_addition'],
    reasoning: { rule: 'micro', required: true },
    toolLoop: true,
    memory: [],
  },
} as PolicyDecideReply;

async function measure(iterations: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * Request/reply round trip over one real nats-server: raw nats.js (echo of the same bytes)
 * next to libs/messaging (envelope, headers, zod validation of request and reply).
 */
export async function runMessagingBench(print: (line: string) => void, iterations = 5_000): Promise<MessagingBenchResult> {
  const server = await startNatsServer();
  try {
    const rawServer = await connect({ servers: server.url });
    const rawClient = await connect({ servers: server.url });
    const replyBytes = new TextEncoder().encode(JSON.stringify({ ok: true, data: reply }));
    const requestBytes = new TextEncoder().encode(JSON.stringify(request));
    rawServer.subscribe('raw.policy.decide', { callback: (_e, m) => void m.respond(replyBytes) });
    await rawServer.flush();

    const serverBus = await connectNatsBus(server.url, 'bench-server');
    const clientBus = await connectNatsBus(server.url, 'bench-client');
    let n = 0;
    serveRequests(serverBus, { 'policy.decide': () => reply }, { prefix: 'bench', newId: () => `s${n++}` });
    await serverBus.flush();
    const requester = createRequester(clientBus, { prefix: 'bench', newId: () => `c${n++}` });

    // Interleaved rounds, so warm-up and machine noise fall on both sides alike.
    const raw: number[] = [];
    const typed: number[] = [];
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      raw.push(...(await measure(iterations / rounds, () => rawClient.request('raw.policy.decide', requestBytes, { timeout: 5000 }))));
      typed.push(...(await measure(iterations / rounds, () => requester.request('policy.decide', request))));
    }
    const result = {
      rawP50: percentile(raw, 50),
      rawP99: percentile(raw, 99),
      messagingP50: percentile(typed, 50),
      messagingP99: percentile(typed, 99),
      ratioP50: percentile(typed, 50) / percentile(raw, 50),
    };
    print(`request/reply over NATS (${iterations} sequential requests each, interleaved in 10 rounds, policy.decide payload)`);
    print(`  raw nats.js        p50 ${ms(result.rawP50)}  p99 ${ms(result.rawP99)}`);
    print(`  libs/messaging     p50 ${ms(result.messagingP50)}  p99 ${ms(result.messagingP99)}`);
    print(`  ratio (p50)        ${result.ratioP50.toFixed(2)}x   (target <= 1.5x)`);
    await rawClient.close();
    await rawServer.close();
    await clientBus.close();
    await serverBus.close();
    return result;
  } finally {
    await server.stop();
  }
}
