import path from 'node:path';
import { readSettings, type Settings } from '../../../../src/platform/settings';
import { startTestAzurite, type TestAzurite } from '../../../support/azurite';
import { SEND_LOG_ENV } from '../../crash/support/fault-hooks';
import { TsChild } from './child-process';

/**
 * What every e2e rig that runs the local host as a child process shares: its table storage and
 * settings, the environment of its children, and starting `highwater start` on a config folder
 * (the convergence and crash suites' SyncRig, the two-way suite's PairRig).
 */

/**
 * `HIGHWATER_E2E_LOCAL_TABLES=sqlite` runs every rig (hosts, movers and the harness's own reads)
 * on the local SQLite tables instead of an Azurite, for evidence on that adapter (docs/reliability.md).
 */
const LOCAL_TABLES = process.env.HIGHWATER_E2E_LOCAL_TABLES === 'sqlite' ? 'sqlite' : undefined;

/**
 * The table storage of a rig in `dir` — an in-memory Azurite in this process (so it outlives
 * killed hosts), or the local SQLite tables — and the settings hosts and the harness share.
 */
export async function hostStorage(dir: string, getChangesSchedule: string): Promise<{ settings: Settings; azurite?: TestAzurite }> {
  const azurite = LOCAL_TABLES ? undefined : await startTestAzurite();
  const tables = azurite ? { storageConnectionString: azurite.connectionString } : { storageConnectionString: undefined, localTables: LOCAL_TABLES };
  const settings: Settings = { ...readSettings({}), ...tables, dataDir: path.join(dir, 'data'), getChangesSchedule };
  return { settings, azurite };
}

/** The environment of a child process on the rig's storage and data folder; `sendLog` records every message the bus accepted. */
export function hostChildEnv(settings: Settings, sendLog: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...(settings.storageConnectionString ? { AzureWebJobsStorage: settings.storageConnectionString } : { HIGHWATER_LOCAL_TABLES: settings.localTables }),
    HIGHWATER_DATA_DIR: settings.dataDir,
    GetChangesSchedule: settings.getChangesSchedule,
    [SEND_LOG_ENV]: sendLog,
    ...extra,
  };
}

/** Starts `highwater start` on the config folder `dir` (log in `logFile`) and waits until it serves. */
export async function startHostChild(dir: string, env: NodeJS.ProcessEnv, logFile: string): Promise<TsChild> {
  const child = TsChild.start('test/e2e/convergence/support/host-child.ts', ['--config', dir], env, logFile);
  try {
    await child.waitFor(/Highwater local host on http:\/\/127\.0\.0\.1:\d+/, 60_000);
  } catch (err) {
    // A host that never served (or served too late) must not outlive the error.
    await child.kill();
    throw err;
  }
  return child;
}
