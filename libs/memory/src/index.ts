export * from './scope';
export * from './project-roots';
