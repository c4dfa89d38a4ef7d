import nx from '@nx/eslint-plugin';
import tsParser from '@typescript-eslint/parser';

const domainBans = ['@nestjs/*', '@nats-io/*', '@kurrent/*', 'node:sqlite', 'node:child_process', 'node:net', 'node:http', 'openai', 'pino', 'testcontainers'];

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'reports/**', '.nx/**', '**/*.cjs', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // Domain: plain functions and types; no framework, no transport, no database.
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain'], bannedExternalImports: domainBans },
            // Infrastructure adapters (store, messaging): I/O, but no Nest.
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:domain', 'type:infra'], bannedExternalImports: ['@nestjs/*'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:testing'] },
            // The Nest shell and the service modules: composition, no reaching into other services.
            { sourceTag: 'type:shell', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell'] },
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell', 'type:testing'] },
            // Apps are deployables: they compose services and never import each other.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:infra', 'type:shell', 'type:service', 'type:testing'] },
          ],
        },
      ],
    },
  },
];
