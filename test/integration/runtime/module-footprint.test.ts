import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { seedDemo } from '../../../src/demo/seed';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { FOOTPRINT_PREFIX, type Footprint } from './support/footprint-child';

/*
 * Memory at rest is mostly code: each package below costs megabytes of RSS. What a process never
 * uses it must not load — checked in child processes, whose require cache is Node's own.
 */

const ROOT = path.resolve(__dirname, '../../..');
const CHILD = path.join(__dirname, 'support/footprint-child.ts');
const REGISTER = path.join(ROOT, 'src/platform/swc-register.js');

/** SDKs a sqlite-only local host has no use for. */
const UNUSED_BY_SQLITE_HOST = ['@azure/service-bus', 'rhea', 'rhea-promise', 'applicationinsights', 'durable-functions', 'pg', 'mysql2', '@azure/functions'];
/** The HTTP connectors' implementations (their settings checks are light and always loaded). */
const HTTP_CONNECTOR_CODE = ['connectors/odata/odata-connectors', 'connectors/dataverse/dataverse-connectors', 'connectors/businesscentral/bc-connectors'];
/** What merely requiring the CLI entry must not load: every command loads what it needs when it runs. */
const UNUSED_BY_CLI_AT_REST = [...UNUSED_BY_SQLITE_HOST, '@azure/identity', '@azure/data-tables', 'better-sqlite3', 'zod', 'yaml'];

const run = promisify(execFile);

async function footprints(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ stages: Record<string, Footprint>; stdout: string }> {
  const base = { ...process.env };
  // The child must run locally whatever the developer's shell points at.
  for (const name of ['SERVICEBUS_CONNECTION_STRING', 'ServiceBusConnection__fullyQualifiedNamespace', 'APPLICATIONINSIGHTS_CONNECTION_STRING', 'HIGHWATER_TABLES_ENDPOINT']) {
    delete base[name];
  }
  const { stdout } = await run(process.execPath, ['-r', REGISTER, CHILD, ...args], { cwd: ROOT, env: { ...base, ...env }, timeout: 90_000 });
  const stages: Record<string, Footprint> = {};
  for (const line of stdout.split('\n')) {
    if (!line.startsWith(FOOTPRINT_PREFIX)) continue;
    const footprint = JSON.parse(line.slice(FOOTPRINT_PREFIX.length)) as Footprint;
    stages[footprint.stage] = footprint;
  }
  return { stages, stdout };
}

function expectAbsent(footprint: Footprint, packages: readonly string[], modules: readonly string[] = []): void {
  expect({ stage: footprint.stage, packages: footprint.packages.filter((p) => packages.includes(p)) }).toEqual({ stage: footprint.stage, packages: [] });
  expect({ stage: footprint.stage, modules: footprint.modules.filter((m) => modules.includes(m)) }).toEqual({ stage: footprint.stage, modules: [] });
}

describe('modules loaded on first use', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'hw-footprint-'));
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('requiring the CLI entry loads the command definitions and commander, no SDK, driver or connector', async () => {
    const { stages } = await footprints(['cli']);
    const cli = stages.cli;
    expect(cli.modules).toContain('src/cli/main');
    expect(cli.packages).toContain('commander');
    expectAbsent(cli, UNUSED_BY_CLI_AT_REST, [...HTTP_CONNECTOR_CODE, 'connectors/sql/sqlite-dialect', 'connectors/sql/postgres-dialect', 'src/runtime/runtime', 'src/host/local-host']);
  }, 120_000);

  it('validates every connector type without its implementation, and loads each type (not its neighbours) when opened', async () => {
    const dir = mkdtempSync(path.join(scratch, 'connectors-'));
    const { stages, stdout } = await footprints(['connectors', dir]);
    // Each type's validator ran and found the empty settings wanting.
    const problems = JSON.parse(/^PROBLEMS (.*)$/m.exec(stdout)?.[1] ?? '{}') as Record<string, number>;
    expect(Object.keys(problems).sort()).toEqual(['businesscentral', 'dataverse', 'mysql', 'odata', 'postgres', 'sqlite']);
    for (const [type, count] of Object.entries(problems)) expect({ type, found: count > 0 }).toEqual({ type, found: true });

    expectAbsent(stages.validated, [...UNUSED_BY_SQLITE_HOST, '@azure/identity'], [...HTTP_CONNECTOR_CODE, 'connectors/sql/sqlite-dialect', 'connectors/sql/postgres-dialect', 'connectors/sql/mysql-dialect']);

    const sqlite = stages['sqlite opened'];
    expect(sqlite.modules).toEqual(expect.arrayContaining(['connectors/sql/sqlite-dialect', 'connectors/sql/sql-source', 'connectors/sql/sql-target']));
    expectAbsent(sqlite, [...UNUSED_BY_SQLITE_HOST, '@azure/identity'], [...HTTP_CONNECTOR_CODE, 'connectors/sql/postgres-dialect', 'connectors/sql/mysql-dialect']);

    const odata = stages['odata opened'];
    expect(odata.modules).toContain('connectors/odata/odata-connectors');
    // No token was requested yet, so the identity library waits too.
    expectAbsent(odata, ['@azure/identity', 'pg'], ['connectors/dataverse/dataverse-connectors', 'connectors/businesscentral/bc-connectors']);
  }, 120_000);

  describe('a local host whose connections are all sqlite', () => {
    let azurite: TestAzurite;

    beforeAll(async () => {
      azurite = await startTestAzurite();
    }, 60_000);

    afterAll(async () => {
      await azurite?.stop();
    });

    it('loads neither the Azure bus, App Insights, Durable Functions, pg nor an HTTP connector, started or syncing', async () => {
      const config = mkdtempSync(path.join(scratch, 'demo-'));
      cpSync(path.join(ROOT, 'examples/demo'), config, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$/.test(src) });
      seedDemo(config);
      const { stages } = await footprints(['host', config, path.join(config, '.data')], { AzureWebJobsStorage: azurite.connectionString });

      // On a connection string the table storage adapter leaves @azure/identity unloaded too.
      expectAbsent(stages['host started'], [...UNUSED_BY_SQLITE_HOST, '@azure/identity'], [...HTTP_CONNECTOR_CODE, 'connectors/sql/postgres-dialect', 'src/bus/azure/azure-bus']);
      const synced = stages['host synced'];
      expect(synced.modules).toEqual(expect.arrayContaining(['connectors/sql/sqlite-dialect', 'src/bus/local/local-bus']));
      expectAbsent(synced, [...UNUSED_BY_SQLITE_HOST, '@azure/identity'], [...HTTP_CONNECTOR_CODE, 'connectors/sql/postgres-dialect', 'src/bus/azure/azure-bus']);
    }, 120_000);
  });
});
