import type { NatsConnection } from '@nats-io/transport-node';
import { StagecraftError } from '@stagecraft/contracts';
import type { MessageBus } from './bus';

const connections = new WeakMap<MessageBus, NatsConnection>();

/** Whether a connection is up, and who waits to hear that it dropped. */
interface Link {
  up: boolean;
  onLost: Set<() => void>;
}
const links = new WeakMap<NatsConnection, Link>();

/** Follows the client's status feed until the connection closes. */
async function follow(nc: NatsConnection, link: Link): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === 'disconnect') {
      link.up = false;
      for (const lost of [...link.onLost]) lost();
    } else if (status.type === 'reconnect') link.up = true;
  }
}

/** Called by the NATS adapter: what JetStream (leases, retained run events) is reached through. */
export function rememberConnection(bus: MessageBus, nc: NatsConnection): void {
  connections.set(bus, nc);
  if (!links.has(nc)) {
    const link: Link = { up: true, onLost: new Set() };
    links.set(nc, link);
    void follow(nc, link).catch(() => undefined);
  }
}

/** The connection under a NATS bus; undefined for the in-process bus, which has no server behind it. */
export function natsConnectionOf(bus: MessageBus): NatsConnection | undefined {
  return connections.get(bus);
}

/**
 * `work` on `nc`, failing with UNAVAILABLE at once when the connection is down or drops meanwhile,
 * instead of the request's own timeout: what needs the server now (a lease) learns it cannot have it
 * sooner, and a process stopping while the server is gone does not wait on each such request.
 * A connection the adapter did not open runs `work` as it is.
 */
export async function whileConnected<T>(nc: NatsConnection, work: () => Promise<T>): Promise<T> {
  const link = links.get(nc);
  if (!link) return work();
  const lost = () => new StagecraftError('UNAVAILABLE', 'the NATS connection is down');
  if (!link.up) throw lost();
  let drop: () => void = () => undefined;
  const dropped = new Promise<never>((_, reject) => (drop = () => reject(lost())));
  link.onLost.add(drop);
  try {
    return await Promise.race([work(), dropped]);
  } finally {
    link.onLost.delete(drop);
  }
}
