// Three projects: pure unit tests, integration and fault tests against a real Temporal dev server (and FerretDB),
// and replay tests of recorded histories. One global setup starts the servers once for the whole run.
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const common = { testEnvironment: 'node', transform, moduleFileExtensions: ['ts', 'js', 'json'] };

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      globalSetup: '<rootDir>/tests/global-setup.ts',
      globalTeardown: '<rootDir>/tests/global-teardown.ts',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts', '<rootDir>/tests/faults/**/*.test.ts'],
    },
    { ...common, displayName: 'replay', testMatch: ['<rootDir>/tests/replay/**/*.test.ts'] },
  ],
};
