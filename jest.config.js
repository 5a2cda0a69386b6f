/** Unit and integration tests beside the code, end-to-end suites in test/. */
module.exports = {
  testEnvironment: 'node',
  roots: [
    '<rootDir>/connectors/src',
    '<rootDir>/service/src',
    '<rootDir>/zapier-app',
    '<rootDir>/n8n-nodes-svc',
    '<rootDir>/make-blueprints',
    '<rootDir>/test',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // Tests run the connectors' sources, not their build.
  moduleNameMapper: {
    '^@svc/connectors$': '<rootDir>/connectors/src/index.ts',
    '^@svc/service/testing$': '<rootDir>/service/src/testing/index.ts',
  },
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 30000,
};
