import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { runCli } from '../../../src/cli/main';
import { ConfigValidationError } from '../../../src/platform/config-issue';
import { loadConfigFolder } from '../../../src/config/load-config';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { CONFIG_CASES, type ConfigCase } from './support/config-corpus';
import { caseRoot, writeCaseFolder } from './support/config-folder';
import { captureCliOutput, type CliOutput } from './support/cli-output';
import { storedState } from './support/stored-state';

/**
 * The bad-configuration corpus through every door: `loadConfigFolder` as the host loads it (with
 * the connectors' settings checks), `highwater config validate` and `highwater config push`.
 * Each must name the file, the property path and what is wrong — all issues, in file order —
 * exit 1, and push must leave the tables exactly as they were.
 */
describe('invalid configurations', () => {
  let azurite: TestAzurite;
  let root: ReturnType<typeof caseRoot>;
  const dirs = new Map<string, string>();
  let baseline: Record<string, unknown>;
  let output: CliOutput;
  const saved = process.env.AzureWebJobsStorage;

  beforeAll(async () => {
    azurite = await startTestAzurite();
    process.env.AzureWebJobsStorage = azurite.connectionString;
    root = caseRoot();
    for (const c of CONFIG_CASES) dirs.set(c.name, writeCaseFolder(root.root, c.name, c.files));
    output = captureCliOutput();
    // A valid configuration in the tables: what every failed push must leave untouched.
    expect(await runCli(['config', 'push', '--config', writeCaseFolder(root.root, 'valid-base', {})])).toBe(0);
    output.restore();
    baseline = await storedState(azurite.connectionString);
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.AzureWebJobsStorage;
    else process.env.AzureWebJobsStorage = saved;
    await azurite?.stop();
    root?.remove();
  });

  /** The case's expected lines with `{dir}` resolved. */
  const expectedLines = (c: ConfigCase) => c.expected.map((line) => line.replace('{dir}', dirs.get(c.name)!));
  const title = (c: ConfigCase) => `${c.name}: ${c.expected.length} issue${c.expected.length === 1 ? '' : 's'}`;

  it('holds at least 50 cases with distinct names', () => {
    expect(CONFIG_CASES.length).toBeGreaterThanOrEqual(50);
    expect(new Set(CONFIG_CASES.map((c) => c.name)).size).toBe(CONFIG_CASES.length);
  });

  describe('loadConfigFolder (as the host loads it)', () => {
    it.each(CONFIG_CASES.map((c) => [title(c), c] as const))('%s', async (_title, c) => {
      const options = { connectionTypes: defaultConnectorRegistry().connectionTypes() };
      const err = await loadConfigFolder(dirs.get(c.name)!, options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigValidationError);
      expect((err as Error).message.split('\n')).toEqual(expectedLines(c));
      expect((err as Error).message).not.toContain('hunter2');
    });
  });

  /**
   * The CLI's form of the expected lines: each entry named beside its index (`jobs[0].schedule
   * (job "crm-accounts"): …`), the name read from the case's own files.
   */
  const WORD: Record<string, string> = { connections: 'connection', mappings: 'mapping', jobs: 'job' };
  function cliLines(c: ConfigCase): string[] {
    const dir = dirs.get(c.name)!;
    const parsed = new Map<string, unknown>();
    for (const file of readdirSync(dir)) {
      try {
        parsed.set(file, parseYaml(readFileSync(path.join(dir, file), 'utf8')));
      } catch {
        // Unparseable on purpose: its lines name no entry.
      }
    }
    return expectedLines(c).map((line) => {
      const match = /^([^:]+): ((connections|mappings|jobs)\[(\d+)\][^:]*): (.*)$/s.exec(line);
      if (!match) return line;
      const [, file, at, kind, index, message] = match;
      const list = (parsed.get(file) as Record<string, unknown> | undefined)?.[kind];
      const name = Array.isArray(list) ? (list[Number(index)] as { name?: unknown } | undefined)?.name : undefined;
      return typeof name === 'string' && name.trim() !== '' ? `${file}: ${at} (${WORD[kind]} ${JSON.stringify(name)}): ${message}` : line;
    });
  }

  async function cli(command: 'validate' | 'push', c: ConfigCase): Promise<void> {
    output = captureCliOutput();
    let code: number;
    try {
      code = await runCli(['config', command, '--config', dirs.get(c.name)!]);
    } finally {
      output.restore();
    }
    expect({ code, stdout: output.stdout, stderr: output.stderr }).toEqual({ code: 1, stdout: [], stderr: [`error: ${cliLines(c).join('\n')}`] });
  }

  describe('highwater config validate', () => {
    it.each(CONFIG_CASES.map((c) => [title(c), c] as const))('%s', (_title, c) => cli('validate', c));
  });

  describe('highwater config push', () => {
    it.each(CONFIG_CASES.map((c) => [title(c), c] as const))('%s', (_title, c) => cli('push', c));

    it('left every table exactly as it was (same entities, same ETags)', async () => {
      expect(await storedState(azurite.connectionString)).toEqual(baseline);
    });
  });
});
