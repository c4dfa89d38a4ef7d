import type { NatsConnection } from '@nats-io/transport-node';
import type { MessageBus } from './bus';

const connections = new WeakMap<MessageBus, NatsConnection>();

/** Called by the NATS adapter: what JetStream (leases, retained run events) is reached through. */
export function rememberConnection(bus: MessageBus, nc: NatsConnection): void {
  connections.set(bus, nc);
}

/** The connection under a NATS bus; undefined for the in-process bus, which has no server behind it. */
export function natsConnectionOf(bus: MessageBus): NatsConnection | undefined {
  return connections.get(bus);
}
