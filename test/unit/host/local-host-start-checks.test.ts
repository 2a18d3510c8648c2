import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { readSettings } from '../../../src/platform/settings';
import { startLocalHost } from '../../../src/host/local-host';
import { silentLogger } from '../../../src/telemetry/logger';
import { fixtureConfig, writeConfigDir } from '../../integration/config/config-fixture';

/**
 * A taken port gave Node's raw `listen EADDRINUSE …`, and a broken config was
 * reported only after Azurite had started. Both are refused before any storage is opened: the
 * settings name no storage, so opening it would start Azurite in `<dataDir>/azurite`.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function setup(mutate: (c: ReturnType<typeof fixtureConfig>) => void = () => {}) {
  const config = fixtureConfig();
  mutate(config);
  const configDir = writeConfigDir(config);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-host-checks-'));
  dirs.push(configDir, dataDir);
  return { configDir, dataDir, settings: { ...readSettings({}), dataDir } };
}

it('names the taken port and --port N, before Azurite is started', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as net.AddressInfo;
  const { configDir, dataDir, settings } = setup();
  try {
    await expect(startLocalHost({ configDir, port, settings, log: silentLogger })).rejects.toThrow(
      `port ${port} on 127.0.0.1 is already in use (another highwater host?): stop what listens there, or pick another port with --port N (--port 0 picks a free one)`,
    );
  } finally {
    blocker.close();
  }
  expect(fs.existsSync(path.join(dataDir, 'azurite'))).toBe(false);
});

it('reports an invalid config folder before Azurite is started', async () => {
  const { configDir, dataDir, settings } = setup((c) => (c.jobs[0].pageSize = -1));
  await expect(startLocalHost({ configDir, port: 0, settings, log: silentLogger })).rejects.toThrow(/^jobs\.yaml: jobs\[0\]\.pageSize: /);
  expect(fs.existsSync(path.join(dataDir, 'azurite'))).toBe(false);
});
