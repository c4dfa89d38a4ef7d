/** The run: its decider (`runDecider`: decide, evolve, initial state over a union on status), the next step its shell performs, and its replay and audit. */
export * from './state';
export * from './evolve';
export * from './inputs';
export * from './decide';
export * from './next-step';
export * from './compaction';
export * from './rules';
export * from './ids';
export * from './limits';
export * from './pending-event';
export * from './invariants';
export * from './instruction-tags';
export * from './delegation';
export * from './run-view';
export * from './replay';
export * from './audit';
export * from './approvals';
