export * from './nats-server';
export * from './processes';
export * from './scripts';
export * from './prng';
export * from './eventually';
export * from './inspector';
