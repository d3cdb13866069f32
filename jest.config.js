// Four projects: pure unit tests, integration and fault tests against a real Temporal dev server (and FerretDB),
// replay tests of recorded histories, and the production shape. One global setup starts the integration project's
// servers once for the whole run. Three workers run files side by side, the slowest first (each file has its own task
// queue, worker and database). On two cores the suite is CPU-bound, but most files also wait on servers and timers:
// a third worker fills some of those waits (fresh clones, CI=true: jest 974-1220 s with three, 1132-1171 s with two;
// runs of the same code here vary by 200 s; 1043 s with three since the serves load a prebuilt bundle).
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
  // ESM-only dependencies of the A2A SDK (jose): compiled to CommonJS, as jest's runtime cannot require ES modules.
  '^.+/node_modules/jose/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = {
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  maxWorkers: 3,
  testSequencer: '<rootDir>/jest-sequencer.js',
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
    // The production shape (tests/production): each file starts its own stack (PostgreSQL, Temporal on it, FerretDB,
    // NATS, built workers and bridges) through tests/helpers/production-stack.ts, so no global setup.
    { ...common, displayName: 'production', testMatch: ['<rootDir>/tests/production/**/*.test.ts'] },
  ],
};
