export * from './nats-server';
export * from './processes';
