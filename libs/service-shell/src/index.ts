/** Hosting services: a service as a handler table (`defineService`), run in one process or many, with probes and a clean stop. */
export type { Clock, NewId } from './tokens';
export * from './config';
export * from './ports';
export * from './define-service';
export * from './health';
export * from './start-services';
export * from './probe-server';
export * from './compose-ports';
export * from './run-service-process';
export * from './lifecycle';
export * from './in-flight';
export * from './embedded';
export * from './readiness';
