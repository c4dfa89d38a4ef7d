/** What tests run against: a real nats-server, child processes, the CLI, scripts for the scripted model, and polling helpers. */
export * from './nats-server';
export * from './processes';
export * from './scripts';
export * from './prng';
export * from './eventually';
export * from './inspector';
export * from './chromium';
