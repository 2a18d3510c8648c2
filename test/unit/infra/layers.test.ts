import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The layer order of `.dependency-cruiser.cjs` (docs/architecture.md), checked with
 * dependency-cruiser over everything that ships or runs: no import into a higher layer, none
 * between the application services, no cycles, no file outside a layer. The second case proves
 * the rules catch each kind on a small tree laid out like the project's.
 */
const ROOT = resolve(__dirname, '../../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const FOLDERS = ['src', 'connectors', 'functions', 'tools', 'bench'];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

async function cruise(cwd: string, folders: string[]): Promise<{ violations: Violation[]; modules: number }> {
  const run = promisify(execFile);
  // Exit code 1 means "violations found": the JSON on stdout still says which.
  const { stdout } = await run(process.execPath, [CLI, '--config', CONFIG, '--output-type', 'json', ...folders], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
  const result = JSON.parse(stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  return { violations: result.summary.violations, modules: result.summary.totalCruised };
}

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

describe('layers', () => {
  it('the project keeps its layer order', async () => {
    const { violations, modules } = await cruise(ROOT, FOLDERS);
    expect(modules).toBeGreaterThan(300);
    expect(violations.map(describeViolation)).toEqual([]);
  }, 60_000);

  it('the rules catch an upward import, a sideways import, a cycle and a file outside the layers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-layers-'));
    try {
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node' } }),
        'src/platform/low.ts': "import { high } from '../runtime/high';\nexport const low = high;\n",
        'src/runtime/high.ts': 'export const high = 1;\n',
        'src/detect/a.ts': "import { b } from '../process/b';\nexport const a = b;\n",
        'src/process/b.ts': 'export const b = 2;\n',
        'src/http/x.ts': "import { y } from './y';\nexport const x = (): number => y();\n",
        'src/http/y.ts': "import { x } from './x';\nexport const y = (): number => x();\n",
        'src/elsewhere/stray.ts': "import { b } from '../process/b';\nexport const stray = b;\n",
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      const { violations } = await cruise(dir, ['src']);
      const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
      expect(found).toEqual(
        expect.arrayContaining([
          'no-upward-from-platform: src/platform/low.ts → src/runtime/high.ts',
          'no-sideways-from-src-detect: src/detect/a.ts → src/process/b.ts',
          'no-cycles: src/http/x.ts → src/http/y.ts',
          'in-a-layer: src/elsewhere/stray.ts → src/process/b.ts',
        ]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
