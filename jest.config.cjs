// One Jest run for the whole workspace, split by test kind so CI and developers can pick.
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
};
const moduleNameMapper = {
  '^@stagecraft/([a-z-]+)-service$': '<rootDir>/libs/services/$1/src/index.ts',
  '^@stagecraft/([a-z-]+)/([a-z-]+)$': '<rootDir>/libs/$1/src/$2.ts',
  '^@stagecraft/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
};
const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};
module.exports = {
  testTimeout: 30000,
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{libs,apps,tools}/**/*.spec.ts'],
      testPathIgnorePatterns: [...base.testPathIgnorePatterns, '\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$', '\\.containers\\.spec\\.ts$'],
    },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,apps,tools}/**/*.int.spec.ts'],
      globalSetup: '<rootDir>/tools/jest/global-setup.cjs',
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{libs,apps,tools}/**/*.e2e.spec.ts'],
      globalSetup: '<rootDir>/tools/jest/global-setup.cjs',
    },
    {
      ...base,
      // Containers of the built image (tools/containers); NOT RUN without a container runtime and stagecraft:local.
      displayName: 'containers',
      testMatch: ['<rootDir>/{libs,apps,tools}/**/*.containers.spec.ts'],
      globalSetup: '<rootDir>/tools/jest/global-setup.cjs',
    },
  ],
};
