export * from './scope';
