import { Server, Socket, createServer, connect } from 'node:net';
import { StartedNetwork, getContainerRuntimeClient } from 'testcontainers';

/** The host's address on a container network: what a container dials to reach the host. */
export async function networkGateway(network: StartedNetwork): Promise<string> {
  const client = await getContainerRuntimeClient();
  const inspect = await client.container.dockerode.getNetwork(network.getId()).inspect();
  const gateway = (inspect.IPAM?.Config ?? []).map((c: { Gateway?: string }) => c.Gateway).find(Boolean);
  if (!gateway) throw new Error(`network ${network.getName()} names no gateway`);
  return gateway;
}

export interface Forwarder {
  /** The port on the gateway address that leads to the target. */
  port: number;
  close(): Promise<void>;
}

/**
 * Forwards TCP from `gateway` (a free port) to a server the test runs on loopback, so containers
 * reach it while it stays closed to every other host.
 */
export async function forwardFromGateway(gateway: string, target: { host: string; port: number }): Promise<Forwarder> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => (sockets.add(socket), socket.once('close', () => sockets.delete(socket)));
  const server: Server = createServer((inbound) => {
    const outbound = connect(target.port, target.host);
    track(inbound);
    track(outbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, gateway, resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
