/** Four projects: `unit` (unit and integration tests beside the code), `connectors` (Zapier, n8n, Make in their runtimes), `e2e` (test/), `bench` (the benchmarks' smoke). */
const shared = {
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // Tests run the sources of the workspace packages, not their builds.
  moduleNameMapper: {
    '^@svc/connectors$': '<rootDir>/connectors/src/index.ts',
    '^@svc/service/testing$': '<rootDir>/service/src/testing/index.ts',
  },
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/connectors/src', '<rootDir>/service/src'] },
    { ...shared, displayName: 'connectors', roots: ['<rootDir>/zapier-app', '<rootDir>/n8n-nodes-svc', '<rootDir>/make-blueprints'] },
    { ...shared, displayName: 'e2e', roots: ['<rootDir>/test'] },
    // bench/smoke.test.ts: every benchmark at its smallest size (about 1-2 minutes; npm test builds first).
    { ...shared, displayName: 'bench', roots: ['<rootDir>/bench'] },
  ],
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
