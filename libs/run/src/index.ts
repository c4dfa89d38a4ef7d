export * from './run-view';
