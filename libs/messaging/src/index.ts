export * from './bus';
export * from './errors';
export { createInprocBus } from './inproc-bus';
export { createNatsBus, connectNatsBus } from './nats-bus';
export * from './requests';
export * from './publish';
export { subjectMatches } from './subject-match';
export { wireBytes } from './wire-size';
