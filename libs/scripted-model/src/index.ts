export * from './script';
export { startScriptedModelServer } from './server';
export { ScriptExhaustedError } from './script-cursor';
export { embeddingVector, DEFAULT_EMBEDDING_DIMENSIONS } from './embeddings';
export { demoScript } from './demo/demo-script';
