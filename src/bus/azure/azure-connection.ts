import { DefaultAzureCredential } from '@azure/identity';
import { ServiceBusAdministrationClient, ServiceBusClient, parseServiceBusConnectionString } from '@azure/service-bus';
import { ConfigError } from '../../platform/errors';

/** How to reach a Service Bus namespace. */
export type AzureServiceBusConnection =
  | {
      /**
       * `Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…`; with `UseDevelopmentEmulator=true`
       * it targets the official emulator (plain AMQP; `Endpoint=sb://host:port` picks the port).
       */
      connectionString: string;
    }
  | {
      /** `<name>.servicebus.windows.net` (a scheme and trailing slash are tolerated). */
      fullyQualifiedNamespace: string;
      /** Client id of a user-assigned managed identity; default: the system-assigned identity or a developer login. */
      managedIdentityClientId?: string;
    };

export interface AzureRetryOptions {
  /** Retries of a failed operation by the SDK. Default 3. */
  maxRetries?: number;
  /** Time allowed for one attempt of an operation, in ms. Default 60,000. */
  timeoutMs?: number;
  /** Delay before the first retry, in ms (exponential after it). Default 1,000. */
  retryDelayMs?: number;
}

/** The SDK clients of one bus. */
export interface AzureClients {
  client: ServiceBusClient;
  admin: ServiceBusAdministrationClient;
  /** The emulator has no administration (ATOM) endpoint in this SDK: counts come from peeking. */
  emulator: boolean;
  /** Host name of the namespace (safe to show: no secret). */
  namespace: string;
}

/** Strips `sb://` / `https://` and a trailing path from a namespace given as a URL. */
export function normalizeNamespace(value: string): string {
  return value.trim().replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
}

/**
 * Checks a connection string (the SDK's parser: Endpoint, and a key or signature) without
 * echoing it, as it holds the key.
 * @throws ConfigError
 */
function parseConnectionString(connectionString: string): { namespace: string; emulator: boolean } {
  let parsed: ReturnType<typeof parseServiceBusConnectionString>;
  try {
    parsed = parseServiceBusConnectionString(connectionString);
  } catch {
    throw new ConfigError('Service Bus connection string: malformed (expected Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…)');
  }
  const emulator = /(^|;)\s*UseDevelopmentEmulator\s*=\s*true\s*(;|$)/i.test(connectionString);
  return { namespace: parsed.fullyQualifiedNamespace, emulator };
}

/** Creates the clients; nothing connects until the first operation. @throws ConfigError */
export function createAzureClients(connection: AzureServiceBusConnection, retry: AzureRetryOptions = {}): AzureClients {
  const retryOptions = {
    maxRetries: retry.maxRetries ?? 3,
    timeoutInMs: retry.timeoutMs ?? 60_000,
    retryDelayInMs: retry.retryDelayMs ?? 1_000,
  };
  const adminRetry = { maxRetries: retryOptions.maxRetries, retryDelayInMs: retryOptions.retryDelayInMs };
  if ('connectionString' in connection) {
    const { namespace, emulator } = parseConnectionString(connection.connectionString);
    return {
      client: new ServiceBusClient(connection.connectionString, { retryOptions }),
      admin: new ServiceBusAdministrationClient(connection.connectionString, { retryOptions: adminRetry }),
      emulator,
      namespace,
    };
  }
  const namespace = normalizeNamespace(connection.fullyQualifiedNamespace);
  if (namespace === '') throw new ConfigError('Service Bus namespace: empty (expected <name>.servicebus.windows.net)');
  const credential = new DefaultAzureCredential(
    connection.managedIdentityClientId ? { managedIdentityClientId: connection.managedIdentityClientId } : {},
  );
  return {
    client: new ServiceBusClient(namespace, credential, { retryOptions }),
    admin: new ServiceBusAdministrationClient(namespace, credential, { retryOptions: adminRetry }),
    emulator: false,
    namespace,
  };
}
