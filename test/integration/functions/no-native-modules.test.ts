/**
 * The Functions app loads on a host without better-sqlite3 (a deployment built without it, or a
 * native build for another platform): the built `dist/functions/index.js` is loaded in a child
 * process whose `better-sqlite3` cannot be resolved, with a stand-in for the module the Functions
 * host provides, and every function must register. Local-only modules (local bus, SQLite tables,
 * WAL checkpoints) must not even load.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

const root = path.resolve(__dirname, '../../..');
const hook = path.join(__dirname, 'support/without-native.js');
// Under the project, so that the built files resolve the project's node_modules.
const outDir = path.join(root, 'test-artifacts', `no-native-${process.pid}-${Date.now()}`);
const probeFile = path.join(outDir, 'probe.json');

interface Probe {
  registered: string[];
  hooks: string[];
  nativeAttempts: string[];
  loaded: string[];
}

/** Runs `script` in a child node with the hook; returns what the hook recorded and the child's output. */
function probe(script: string, env: NodeJS.ProcessEnv = {}): Probe & { status: number | null; output: string } {
  fs.rmSync(probeFile, { force: true });
  const run = spawnSync(process.execPath, ['--require', hook, '-e', script], {
    cwd: outDir,
    env: { ...process.env, HW_PROBE_OUT: probeFile, APPLICATIONINSIGHTS_CONNECTION_STRING: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const recorded = JSON.parse(fs.readFileSync(probeFile, 'utf8')) as Probe;
  return { ...recorded, status: run.status, output: `${run.stdout}${run.stderr}` };
}

const LOCAL_ONLY = [/[\\/]src[\\/]bus[\\/]local[\\/]/, /[\\/]src[\\/]sqlite[\\/]/, /sqlite-table-stor(e|age)\.js$/, /[\\/]connectors[\\/]sql[\\/]sqlite-/, /[\\/]better-sqlite3[\\/]/];

describe('the Functions app without better-sqlite3', () => {
  beforeAll(() => {
    // The very build the package ships (tsconfig.build.json), into a folder of this test's own.
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root, stdio: 'pipe' });
  }, 180_000);

  let azurite: TestAzurite | undefined;
  afterAll(async () => {
    await azurite?.stop();
    fs.rmSync(outDir, { recursive: true, force: true });
  });

  it('registers all fourteen functions and the shutdown hook, and loads no local-only module', () => {
    const result = probe(`require(${JSON.stringify(path.join(outDir, 'functions/index.js'))})`);
    expect(result.status).toBe(0);
    expect([...result.registered].sort()).toEqual(
      [
        'ExecuteJob',
        'GetChanges',
        'GetChangesActivity',
        'GetChangesOrchestrator',
        'GetRunStatus',
        'JobState',
        'ProcessHighQueueItems',
        'ProcessLowQueueItems',
        'ProcessNormalQueueItems',
        'ReceivePush',
        'RenewSubscriptions',
        'RequeueParked',
        'SampleGauges',
        'StartGetChangesOrchestration',
      ].sort(),
    );
    expect(result.hooks).toEqual(['appTerminate']);
    expect(result.nativeAttempts).toEqual([]);
    expect(result.loaded.filter((file) => LOCAL_ONLY.some((pattern) => pattern.test(file)))).toEqual([]);
    // The runtime's composition root is part of what loads: the check covers the real import graph.
    expect(result.loaded).toContain(path.join(outDir, 'src/runtime/runtime.js'));
  });

  it('creates and closes the runtime as in Azure (Table Storage, Service Bus) without loading anything local-only', async () => {
    azurite = await startTestAzurite();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-no-native-'));
    try {
      const script = `
        const { createFunctionsRuntime } = require(${JSON.stringify(path.join(outDir, 'functions/runtime-instance.js'))});
        createFunctionsRuntime(process.env).then(async (runtime) => {
          console.log(JSON.stringify({ storage: runtime.storage.description, bus: runtime.bus.constructor.name }));
          await runtime.close();
        }).catch((err) => { console.error(err); process.exitCode = 1; });`;
      const result = probe(script, {
        AzureWebJobsStorage: azurite.connectionString,
        // The emulator's form; creating the client opens no connection.
        ServiceBusConnection: 'Endpoint=sb://127.0.0.1:5999;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;',
        HIGHWATER_DATA_DIR: dataDir,
      });
      expect(result.status).toBe(0);
      expect(JSON.parse(result.output.trim().split('\n').find((line) => line.startsWith('{')) ?? '{}')).toMatchObject({ bus: 'AzureServiceBus' });
      expect(result.nativeAttempts).toEqual([]);
      expect(result.loaded.filter((file) => LOCAL_ONLY.some((pattern) => pattern.test(file)))).toEqual([]);
      expect(result.loaded).toContain(path.join(outDir, 'src/bus/azure/azure-bus.js'));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('makes better-sqlite3 unresolvable indeed: the local bus fails to load under the same hook', () => {
    const result = probe(`require(${JSON.stringify(path.join(outDir, 'src/bus/local/local-bus.js'))})`);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("Cannot find module 'better-sqlite3'");
    expect(result.nativeAttempts).toHaveLength(1);
  });

  it('an sqlite connection opened there fails with a clear configuration error naming it, not a crash', () => {
    const script = `
      const { sqliteConnectorFactory } = require(${JSON.stringify(path.join(outDir, 'connectors/sql/sql-connectors.js'))});
      const ctx = { connection: { name: 'crm-db', type: 'sqlite', settings: { file: 'crm.db' } }, configDir: '.', warn() {}, env: {} };
      try { sqliteConnectorFactory.createTarget(ctx); console.log('opened'); }
      catch (err) { console.log(JSON.stringify({ name: err.name, message: err.message })); }`;
    const result = probe(script);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.output.trim().split('\n').pop() ?? '')).toEqual({
      name: 'ConfigError',
      message:
        'connection "crm-db" (sqlite): better-sqlite3 is not installed here (the Functions deployment package leaves it out): ' +
        'sqlite connections run on the local host only; use postgres, odata, dataverse or businesscentral on Azure',
    });
  });
});
