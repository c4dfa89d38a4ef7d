
export * from './run-state';
export * from './limits';
export * from './next-step';
export * from './pending-event';
export * from './interpret';
export * from './invariants';
export * from './instruction-tags';
export * from './delegation';
export * from './run-view';
