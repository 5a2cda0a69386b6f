/** Unit and integration tests beside the code in service/src, end-to-end suites in test/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/service/src', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testTimeout: 30000,
};
