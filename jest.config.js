/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  testTimeout: 30000,
  // Integration suites start real servers (Azurite, SQLite files): keep their output readable.
  verbose: false,
  // No forceExit: every suite closes what it opens, and a handle left open (a server, a timer, a
  // child process) should show as "Jest did not exit" rather than be hidden. The e2e rigs kill
  // their child hosts and movers in close(), also when a test fails half-way.
};
