export * from './recall';
