export * from './v1';
export * from './openapi';
