import nx from '@nx/eslint-plugin';
import tsParser from '@typescript-eslint/parser';
import tseslint from 'typescript-eslint';

const domainBans = [
  '@nestjs/*',
  '@nats-io/*',
  '@kurrent/*',
  'node:sqlite',
  'node:child_process',
  'node:net',
  'node:http',
  'openai',
  'pino',
  'testcontainers',
];

/**
 * Which layers each layer may import (see docs/architecture.md). Tests may also use the testing lib,
 * and tests of the shell, services and apps the embedded system of every service (type:testing-system).
 */
function boundaries({ forTests }) {
  const t = forTests ? ['type:testing'] : [];
  const system = forTests ? ['type:testing', 'type:testing-system'] : [];
  return [
    // Domain: plain functions and types; no framework, no transport, no database.
    { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', ...t], bannedExternalImports: forTests ? [] : domainBans },
    // Infrastructure adapters (store, messaging, tools): I/O, but no Nest.
    { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', ...t], bannedExternalImports: ['@nestjs/*'] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:testing'] },
    // Every service hosted in one process, for specs that need the others beside the one they are about.
    {
      sourceTag: 'type:testing-system',
      onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell', 'type:service', 'type:testing'],
    },
    // The Nest shell and the service modules: composition, never reaching into another service.
    { sourceTag: 'type:shell', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell', ...system] },
    { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell', ...system] },
    // Apps are deployables: they compose services and never import each other.
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell', 'type:service', ...system] },
  ];
}

// A service's specs use the testing system, which hosts that service: a cycle in the project graph
// only, since specs are not built; import-cycles.cjs still refuses any circle between files.
const ignoredCircularDependencies = [['@stagecraft/testing-system', 'tag:type:service']];
const rule = (forTests) => [
  'error',
  { enforceBuildableLibDependency: false, allow: [], depConstraints: boundaries({ forTests }), ignoredCircularDependencies },
];
const testFiles = ['**/*.spec.ts', '**/*.testing.ts', '**/*.contract.ts', '**/contract/**/*.ts', '**/e2e/**/*.ts'];

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'reports/**', '.nx/**', '**/*.cjs', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@nx': nx, '@typescript-eslint': tseslint.plugin },
    rules: { '@nx/enforce-module-boundaries': rule(false) },
  },
  { files: testFiles, rules: { '@nx/enforce-module-boundaries': rule(true) } },
];
