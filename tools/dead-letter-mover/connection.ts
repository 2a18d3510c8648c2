import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../src/cli/cli-error';
import { readSettings, type Settings } from '../../src/platform/settings';
import { APP_SETTINGS } from '../../src/platform/app-settings';
import type { ConnectionChoice } from './options';

/** The local bus database file in a data folder (the name `LocalBus.open` uses by default). */
const LOCAL_BUS_FILE = 'bus.sqlite';

/**
 * The settings the bus is opened with: the environment's (queue names, `HIGHWATER_DATA_DIR`,
 * `SERVICEBUS_CONNECTION_STRING`, `ServiceBusConnection__fullyQualifiedNamespace`), with the
 * bus flag applied on top. A connection string is only ever read from the environment, never
 * taken as an argument (arguments show in process lists and shell history).
 * @throws UsageError when `--connection-env` names an unset variable, or the local bus does not exist.
 */
export function settingsFor(choice: ConnectionChoice, env: NodeJS.ProcessEnv, cwd: string): Settings {
  const settings = readSettings(env, cwd);
  const azureless = { ...settings, serviceBusConnectionString: undefined, serviceBusNamespace: undefined };
  let chosen: Settings;
  switch (choice.kind) {
    case 'environment':
      chosen = settings;
      break;
    case 'local':
      chosen = { ...azureless, dataDir: choice.dataDir };
      break;
    case 'namespace':
      chosen = { ...azureless, serviceBusNamespace: choice.namespace };
      break;
    case 'connectionEnv': {
      const value = env[choice.variable]?.trim();
      if (!value) throw new UsageError(`--connection-env: the environment variable ${choice.variable} is not set`);
      chosen = { ...azureless, serviceBusConnectionString: value };
      break;
    }
  }
  if (!chosen.serviceBusConnectionString && !chosen.serviceBusNamespace) {
    // Opening the local bus would create an empty one: a dry run must change nothing.
    const file = path.join(chosen.dataDir, LOCAL_BUS_FILE);
    if (!existsSync(file)) {
      throw new UsageError(
        `no local bus at ${file}: pass --data-dir or set ${APP_SETTINGS.dataDir.name}; for Azure Service Bus set ${APP_SETTINGS.serviceBus.name} or pass --connection-env or --namespace`,
      );
    }
  }
  return chosen;
}
