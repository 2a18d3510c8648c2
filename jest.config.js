/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  testTimeout: 30000,
  // Integration suites start real servers (Azurite, SQLite files): keep their output readable.
  verbose: false,
  // A suite that leaves a handle open must not hang CI after every test has passed.
  forceExit: true,
};
