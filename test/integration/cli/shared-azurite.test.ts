import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../src/storage/table-store';

/**
 * With one host's Azurite on 10002, `HIGHWATER_DATA_DIR=/other highwater
 * watermark list` printed the first instance's watermarks. The local Azurite's port is a setting
 * (`HIGHWATER_AZURITE_PORT`), and an Azurite started for another data folder is refused.
 */
const saved = { ...process.env };
let root: string;
let port: number;
let first: TableStorage;
let out: string[];
let err: string[];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-shared-azurite-'));
  port = await freePort();
  first = await openTableStorage({ dataDir: path.join(root, 'first') }, { localPort: port });
  await (await first.table('watermark')).upsert({ partitionKey: 'watermark', rowKey: 'first-job', properties: { Watermark: 'x' } });
}, 60_000);

afterAll(async () => {
  process.env = saved;
  await first?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

beforeEach(() => {
  out = [];
  err = [];
  process.env = { ...saved, HIGHWATER_AZURITE_PORT: String(port) };
  delete process.env.AzureWebJobsStorage;
  delete process.env.HIGHWATER_TABLES_ENDPOINT;
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  jest.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
});

afterEach(() => jest.restoreAllMocks());

it('refuses an Azurite that serves another data folder, naming both folders and the setting', async () => {
  process.env.HIGHWATER_DATA_DIR = path.join(root, 'other');
  expect(await runCli(['watermark', 'list'])).toBe(1);
  expect(out).toEqual([]);
  expect(err).toEqual([
    `error: the Azurite at 127.0.0.1:${port} serves the data folder ${path.join(root, 'first')}, not ${path.join(root, 'other')} (HIGHWATER_DATA_DIR): ` +
      'stop the host that uses it, or give this data folder its own Azurite with HIGHWATER_AZURITE_PORT=<another port>',
  ]);
});

it('reuses the Azurite of the same data folder', async () => {
  process.env.HIGHWATER_DATA_DIR = path.join(root, 'first');
  expect(await runCli(['watermark', 'list'])).toBe(0);
  expect(out).toEqual(['job        watermark  last cron run', 'first-job  x          -']);
});

it('refuses a HIGHWATER_AZURITE_PORT that is not a port', async () => {
  process.env.HIGHWATER_DATA_DIR = path.join(root, 'first');
  process.env.HIGHWATER_AZURITE_PORT = '99999';
  expect(await runCli(['watermark', 'list'])).toBe(1);
  expect(err).toEqual(['error: app settings: HIGHWATER_AZURITE_PORT: expected a port number 1–65535, got "99999"']);
});
