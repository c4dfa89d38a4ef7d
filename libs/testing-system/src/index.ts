/** Every service of a deployment hosted in one process for a spec (specs only: see eslint.config.mjs). */
export * from './embedded';
