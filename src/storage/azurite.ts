import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { TableServiceClient } from '@azure/data-tables';
import { ConfigError } from '../platform/errors';

/** Azurite's well-known development account (public, documented by Microsoft: not a secret). */
export const AZURITE_ACCOUNT_NAME = 'devstoreaccount1';
const AZURITE_ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
/** Azurite's default table port. */
export const AZURITE_DEFAULT_TABLE_PORT = 10002;

/** Connection string for the dev account of an Azurite table service at host:port. */
export function azuriteConnectionString(port: number, host = '127.0.0.1'): string {
  return (
    `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT_NAME};AccountKey=${AZURITE_ACCOUNT_KEY};` +
    `TableEndpoint=http://${host}:${port}/${AZURITE_ACCOUNT_NAME};`
  );
}

export interface AzuriteOptions {
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Folder for persistent data (`--location`). When omitted, data is kept in memory only. */
  location?: string;
  /** How long to wait for "Table service successfully started". Default 20,000 ms. */
  startTimeoutMs?: number;
  /** Node.js flags for the Azurite process (a benchmark's `--cpu-prof`). Default none. */
  nodeFlags?: readonly string[];
}

export interface AzuriteProcess {
  readonly host: string;
  readonly port: number;
  readonly connectionString: string;
  /** Stops the table service (SIGINT lets it persist its data first); idempotent. */
  stop(): Promise<void>;
}

/**
 * Why Azurite cannot start when its package is missing: it is a development dependency, so a
 * production install (the Function App's) does not have it, and needs no local tables either.
 */
export const AZURITE_MISSING_MESSAGE =
  'Azurite (the local Table Storage emulator) is not installed: it is a development dependency, which "npm ci --omit=dev" and ' +
  '"npm install --omit=dev" leave out. Run "npm install" in the Highwater folder, or set AzureWebJobsStorage or ' +
  'HIGHWATER_TABLES_ENDPOINT to a storage account (then no local Azurite is needed)';

/** The table service's script in the `azurite` package. @throws ConfigError {@link AZURITE_MISSING_MESSAGE} when the package is missing. */
export function azuriteEntryPoint(resolve: (id: string) => string = require.resolve): string {
  try {
    return resolve('azurite/dist/src/table/main.js');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw new ConfigError(AZURITE_MISSING_MESSAGE, { cause: err });
    throw err;
  }
}

const STARTED = /Table service successfully started/;
const STOP_GRACE_MS = 5_000;

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    // SIGINT, not SIGTERM: Azurite handles only SIGINT, saving its data before it exits.
    child.kill('SIGINT');
  });
}

function launch(port: number, host: string, options: AzuriteOptions): Promise<AzuriteProcess> {
  const args = [azuriteEntryPoint(), '--tableHost', host, '--tablePort', String(port)];
  args.push(...(options.location ? ['--location', options.location] : ['--inMemoryPersistence']));
  // --silent: no access log (nobody reads it); --disableTelemetry: it would reach the internet.
  args.push('--skipApiVersionCheck', '--disableTelemetry', '--silent');
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopChild(child);
      reject(new Error(`Azurite did not start within ${options.startTimeoutMs ?? 20_000} ms: ${output.trim()}`));
    }, options.startTimeoutMs ?? 20_000);
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      if (!STARTED.test(output)) return;
      clearTimeout(timer);
      child.stdout?.off('data', onOutput);
      child.stdout?.resume();
      child.stderr?.resume();
      let stopping: Promise<void> | undefined;
      resolve({
        host,
        port,
        connectionString: azuriteConnectionString(port, host),
        stop: () => (stopping ??= stopChild(child)),
      });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Azurite exited before it started (code ${code ?? signal}): ${output.trim()}`));
    });
  });
}

/**
 * Starts an Azurite table service as a child process and resolves once it accepts requests.
 * With port 0 a free port is chosen first (Azurite itself does not report the port it got),
 * and another is tried if that one is taken by the time Azurite binds it.
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<AzuriteProcess> {
  const host = options.host ?? '127.0.0.1';
  if (options.port !== undefined && options.port !== 0) return launch(options.port, host, options);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launch(await freePort(host), host, options);
    } catch (err) {
      lastError = err;
      if (!/EADDRINUSE/.test(String(err))) throw err;
    }
  }
  throw lastError;
}

/**
 * Whether an Azurite (or any table service accepting the dev account) answers at host:port:
 * a real `List Tables` request, not just an open port.
 */
export async function isAzuriteListening(port: number, host = '127.0.0.1', timeoutMs = 2_000): Promise<boolean> {
  const client = TableServiceClient.fromConnectionString(azuriteConnectionString(port, host), {
    allowInsecureConnection: true,
    retryOptions: { maxRetries: 0 },
  });
  try {
    await client.listTables({ abortSignal: AbortSignal.timeout(timeoutMs) }).byPage({ maxPageSize: 1 }).next();
    return true;
  } catch {
    return false;
  }
}
