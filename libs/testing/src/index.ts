export * from './nats-server';
