import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { describeBusContract } from './bus.contract';
import { connectNatsBus } from './nats-bus';

let server: NatsServerHandle;
beforeAll(async () => (server = await startNatsServer()));
afterAll(async () => server?.stop());

describeBusContract('NATS', async (options) => {
  const bus = await connectNatsBus(server.url, 'client', options);
  const peer = await connectNatsBus(server.url, 'server', options);
  return { bus, peer, close: async () => (await bus.close(), await peer.close()) };
});
