export * from './codebase-index';
