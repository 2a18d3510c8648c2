import type { KnipConfig } from 'knip';

/**
 * Dead-code check (`npm run lint`): files nothing reaches, exports nothing imports, dependencies
 * nothing uses. The entries are every way code starts: the Functions app, the CLI, worker
 * threads and child processes, tools, benchmarks and tests (their configs are found by
 * knip's jest and eslint plugins).
 */
const config: KnipConfig = {
  entry: [
    'functions/*.ts',
    // src/cli/main.ts and tools/dead-letter-mover/main.ts: found through package.json's bin.
    // Worker threads, started by file name (see src/platform/worker-entry.ts).
    'src/**/*-main.ts',
    // Run as a script: `node dist/src/config/write-json-schema.js`.
    'src/config/write-json-schema.ts',
    'tools/*/main.ts',
    'bench/**/*.{ts,js}',
    'test/**/*.test.ts',
    // Child processes and workers the tests start by path, and the require hook they load.
    'test/**/*-child.ts',
    'test/**/fixtures/**/*.ts',
    'test/**/support/dying-worker.ts',
    'test/**/support/*.js',
    'test/**/*.d.ts',
  ],
  project: ['src/**/*.ts', 'functions/**/*.ts', 'connectors/**/*.ts', 'tools/**/*.ts', 'bench/**/*.{ts,js}', 'test/**/*.{ts,js}'],
  ignoreDependencies: [
    // Loaded by the CAP test server (`cds` resolves its database plugin by name).
    '@cap-js/sqlite',
    '@sap/cds',
    // Started from its installed files (require.resolve of azurite/dist/…: src/storage/azurite.ts).
    'azurite',
    // Run by the layer test (test/unit/infra/layers.test.ts) through its CLI.
    'dependency-cruiser',
    // Transitive dependencies of @azure/service-bus whose error types the bus tests build.
    '@azure/core-amqp',
    '@azure/core-rest-pipeline',
    'rhea-promise',
  ],
  // The metrics stand-in makes its test certificate with the system's openssl.
  ignoreBinaries: ['openssl'],
};

export default config;
