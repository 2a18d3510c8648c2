import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/main';

/**
 * A command run from a subfolder of the project resolves `.data` against that subfolder: it used
 * to make a second, empty data folder there without a word. It now says, on stderr, which folder
 * it uses and how to use the project's. On the local bus (`highwater queues`), no Azurite.
 */
const ENV = ['AzureWebJobsStorage', 'HIGHWATER_DATA_DIR', 'SERVICEBUS_CONNECTION_STRING', 'SERVICEBUS_NAMESPACE'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
const cwd = process.cwd();
let project: string;
let err: string[];

beforeAll(() => {
  for (const name of ENV) delete process.env[name];
  project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hw-new-data-')));
  fs.mkdirSync(path.join(project, 'config'));
});

afterAll(() => {
  process.chdir(cwd);
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  fs.rmSync(project, { recursive: true, force: true });
});

beforeEach(() => {
  err = [];
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void err.push(args.map(String).join(' ')));
});

afterEach(() => jest.restoreAllMocks());

it('says which data folder a command from a subfolder uses, once, when the project has one', async () => {
  process.chdir(project);
  expect(await runCli(['queues'])).toBe(0);
  expect(err).toEqual([]); // the project's first data folder: nothing to say
  process.chdir(path.join(project, 'config'));
  expect(await runCli(['queues'])).toBe(0);
  expect(err).toEqual([
    `note: using a new data folder ${project}/config/.data; ${project}/.data holds this project's data: to use it, run from ${project} or set HIGHWATER_DATA_DIR=${project}/.data`,
  ]);
  err.length = 0;
  expect(await runCli(['queues'])).toBe(0);
  expect(err).toEqual([]);
});
