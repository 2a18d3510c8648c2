import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { loadConfigFolder } from '../../../src/config/load-config';
import { writeConfigFolder } from '../../../src/config/config-store';
import { readTextFile } from '../../../src/platform/read-text-file';
import { loadRulesFile } from '../../../tools/dead-letter-mover/rules-file';

/**
 * Hangs: a FIFO as `jobs.yaml` hung `config validate`; `--rules <fifo>` kept the
 * mover blocked (and deaf to SIGTERM) for minutes; a data folder under /proc made the bus spin in
 * mkdir; a data folder that is a file said `EEXIST: file already exists`. Each now ends at once
 * with a message naming the file and what is wrong.
 */
describe('files and folders that are not what they should be', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-bad-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const fifo = (name: string) => {
    const file = path.join(dir, name);
    execFileSync('mkfifo', [file]);
    return file;
  };
  /** Resolves within `ms` or fails: what used to hang must end. */
  const within = <T>(ms: number, promise: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms)));
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  };

  it('reads only regular files: a FIFO, a folder and a device are refused at once', async () => {
    const pipe = fifo('pipe');
    await expect(within(2000, readTextFile(pipe))).rejects.toMatchObject({ message: 'not a regular file (a FIFO)' });
    await expect(readTextFile(dir)).rejects.toMatchObject({ message: 'not a regular file (a folder)' });
    await expect(readTextFile('/dev/zero')).rejects.toMatchObject({ message: 'not a regular file (a character device)' });
    await expect(readTextFile(path.join(dir, 'none'))).rejects.toMatchObject({ message: 'no such file' });
  });

  it('config validate: a FIFO named jobs.yaml is an issue, not a hang', async () => {
    const config = path.join(__dirname, '../../../examples/demo');
    for (const name of readdirSync(config).filter((n) => /^(connections|mappings)\.(ya?ml|json)$/.test(n))) copyFileSync(path.join(config, name), path.join(dir, name));
    fifo('jobs.yaml');
    const outcome = await within(5000, loadConfigFolder(dir).then(() => 'loaded', (err: Error) => err.message));
    expect(outcome).toBe('jobs.yaml: cannot read: not a regular file (a FIFO)');
  });

  it('the mover: --rules <fifo> fails at once, naming the file', async () => {
    const pipe = fifo('rules.yaml');
    await expect(within(2000, loadRulesFile(pipe, 'rules.yaml'))).rejects.toMatchObject({
      name: 'UsageError',
      message: 'rules.yaml: cannot read the rules file (not a regular file (a FIFO))',
    });
  });

  it.each([
    ['an existing file', () => (writeFileSync(path.join(dir, 'file'), 'x'), path.join(dir, 'file')), (d: string) => `${d}: not a folder`],
    ['below a file', () => (writeFileSync(path.join(dir, 'file'), 'x'), path.join(dir, 'file', 'data')), (d: string) => `${d}: cannot create (${path.dirname(d)} is not a folder)`],
    ['under /proc', () => '/proc/highwater-test/data', (d: string) => `${d}: cannot create (the file system there does not allow creating folders)`],
  ])('a data folder that is %s: a clear error, no spinning', async (_label, make, message) => {
    const dataDir = make();
    const started = Date.now();
    await expect(within(2000, LocalBus.open({ dataDir }))).rejects.toMatchObject({ code: 'InvalidArgument', message: `The local bus data folder ${message(dataDir)}` });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('config pull into a folder path that is a file says "not a folder"', async () => {
    const file = path.join(dir, 'file');
    writeFileSync(file, 'x');
    await expect(writeConfigFolder(file, { connections: [], mappings: [], jobs: [], pairs: [] })).rejects.toMatchObject({ message: `${file}: not a folder` });
  });
});
