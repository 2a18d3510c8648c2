import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataDirInUseMessage, LOCK_FILE_NAME, lockDataDir } from '../../../src/platform/data-dir-lock';

/**
 * One local host per data folder: the lock file names a live process of another host, and a
 * second host is refused; a lock whose process is gone is taken over. Real processes give the
 * live and the dead pid.
 */
describe('the data folder lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const lockFile = () => path.join(dir, LOCK_FILE_NAME);
  const writeLock = (pid: number, hostname = os.hostname()) =>
    fs.writeFileSync(lockFile(), JSON.stringify({ pid, hostname, startedAt: '2026-03-01T00:00:00.000Z' }));

  it('writes the pid, and removes the file on the last release (re-entrant in one process)', () => {
    const outer = lockDataDir(dir, { now: () => new Date('2026-03-01T10:00:00Z') });
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toEqual({ pid: process.pid, hostname: os.hostname(), startedAt: '2026-03-01T10:00:00.000Z' });
    const inner = lockDataDir(dir);
    inner.release();
    inner.release();
    expect(fs.existsSync(lockFile())).toBe(true);
    outer.release();
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  it('refuses while another live process holds it, naming the pid and the way out', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeLock(other.pid!);
      expect(() => lockDataDir(dir)).toThrow(
        expect.objectContaining({
          name: 'ConfigError',
          message:
            `data folder ${dir} is in use by another highwater host (pid ${other.pid}, started 2026-03-01T00:00:00.000Z): ` +
            'stop that host first, or give this one its own folder with HIGHWATER_DATA_DIR. ' +
            `(CLI commands beside a running host are fine. If no host runs there, delete ${lockFile()}.)`,
        }),
      );
      expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(other.pid);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('refuses a lock of another machine (its pid cannot be checked from here)', () => {
    writeLock(1, 'elsewhere');
    expect(() => lockDataDir(dir)).toThrow(dataDirInUseMessage(dir, { pid: 1, hostname: 'elsewhere', startedAt: '2026-03-01T00:00:00.000Z' }));
  });

  it('takes over a stale lock whose process is gone, and one cut short', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeLock(dead);
    const lock = lockDataDir(dir);
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    // The host before died holding it: its locked batches come back (see LocalHost).
    expect(lock.tookOver).toBe(true);
    lock.release();
    fs.writeFileSync(lockFile(), '{"pid": 12');
    const cutShort = lockDataDir(dir);
    expect(cutShort.tookOver).toBe(true);
    cutShort.release();
    const clean = lockDataDir(dir);
    expect(clean.tookOver).toBe(false);
    clean.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('creates a missing data folder', () => {
    const nested = path.join(dir, 'a', 'b');
    lockDataDir(nested).release();
    expect(fs.statSync(nested).isDirectory()).toBe(true);
  });
});
