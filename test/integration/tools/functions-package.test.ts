/**
 * The Functions deployment package (`npm run package:functions`), built from a fresh build of this
 * project and written outside the project tree, so that Node can resolve nothing from the
 * project's own node_modules: the app must load from the package alone, as on Azure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { copyBuildDataFiles } from '../../../tools/build/data-files';
import { buildFunctionsPackage, type FunctionsPackageSummary } from '../../../tools/functions-package/build-package';
import { productionClosure, type Lockfile } from '../../../tools/functions-package/production-closure';

const root = path.resolve(__dirname, '../../..');
const hook = path.join(root, 'test/integration/functions/support/without-native.js');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-fn-package-'));
const project = path.join(work, 'project');
const pkg = path.join(work, 'package');

/** Every `.js` file under `dir`, relative and `/`-separated. */
function jsFiles(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) return jsFiles(dir, child);
    return entry.name.endsWith('.js') ? [child] : [];
  });
}

/** Files that run on the local host only; they may require what the package leaves out. */
const LOCAL_ONLY = [/^src\/bus\/local\//, /^src\/sqlite\//, /^src\/storage\/sqlite-table-stor(e|age)\.js$/, /^connectors\/sql\/sqlite-/, /^src\/host\//, /^src\/cli\//, /^tools\//];

describe('the Functions deployment package', () => {
  let summary: FunctionsPackageSummary;
  beforeAll(() => {
    // A project folder as azd sees it after its restore and build: the real manifest, lockfile and
    // installed modules, and a fresh build of this tree.
    fs.mkdirSync(project, { recursive: true });
    for (const file of ['package.json', 'package-lock.json', 'host.json']) fs.copyFileSync(path.join(root, file), path.join(project, file));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(project, 'node_modules'));
    // npm run build's two steps: tsc, then the data files beside the built code.
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(project, 'dist')], { cwd: root, stdio: 'pipe' });
    copyBuildDataFiles(root, path.join(project, 'dist'));
    summary = buildFunctionsPackage({ projectDir: project, outDir: pkg });
  }, 240_000);

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('holds the production dependencies only: no development package, no better-sqlite3, nothing native', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lockfile;
    const devKeys = Object.entries(lock.packages).filter(([key, entry]) => key !== '' && entry.dev).map(([key]) => key);
    expect(devKeys.length).toBeGreaterThan(100);
    expect(devKeys.filter((key) => fs.existsSync(path.join(pkg, key)))).toEqual([]);
    for (const dev of ['azurite', 'playwright-core', '@sap/cds', 'jest', 'typescript']) expect([dev, fs.existsSync(path.join(pkg, 'node_modules', dev))]).toEqual([dev, false]);
    expect(fs.existsSync(path.join(pkg, 'node_modules/better-sqlite3'))).toBe(false);
    expect(summary.excluded).toEqual(['better-sqlite3']);
    const native = execFileSync('find', [pkg, '-name', '*.node'], { encoding: 'utf8' }).trim();
    expect(native).toBe('');
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    expect(manifest.main).toBe('dist/functions/index.js');
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.dependencies)).not.toContain('better-sqlite3');
    expect(fs.existsSync(path.join(pkg, 'host.json'))).toBe(true);
    // The demo seeds SQLite databases: only the local CLI runs it.
    expect(fs.existsSync(path.join(pkg, 'dist/src/demo'))).toBe(false);
  });

  it('loads from the package alone: every function registers', () => {
    const probeFile = path.join(work, 'probe.json');
    const run = spawnSync(process.execPath, ['--require', hook, '-e', `require(${JSON.stringify(path.join(pkg, 'dist/functions/index.js'))})`], {
      cwd: pkg,
      env: { ...process.env, HW_PROBE_OUT: probeFile, NODE_PATH: '', APPLICATIONINSIGHTS_CONNECTION_STRING: '' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const probe = JSON.parse(fs.readFileSync(probeFile, 'utf8')) as { registered: string[]; loaded: string[] };
    expect(probe.registered).toHaveLength(14);
    // Nothing came from outside the package (but the test's own hook).
    expect(probe.loaded.filter((file) => !file.startsWith(pkg) && file !== hook)).toEqual([]);
    expect(probe.loaded.length).toBeGreaterThan(100);
  });

  it('resolves, from the package, every package the Azure code requires, also those loaded lazily (Service Bus, identity, Application Insights, pg)', () => {
    const dist = path.join(pkg, 'dist');
    const unresolved: string[] = [];
    let checked = 0;
    for (const rel of jsFiles(dist).filter((file) => !LOCAL_ONLY.some((pattern) => pattern.test(file)))) {
      const text = fs.readFileSync(path.join(dist, rel), 'utf8');
      for (const [, spec] of text.matchAll(/require\("([^".][^"]*)"\)/g)) {
        if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        checked++;
        try {
          require.resolve(spec, { paths: [path.dirname(path.join(dist, rel))] });
        } catch {
          unresolved.push(`${rel}: ${spec}`);
        }
      }
    }
    expect(unresolved).toEqual([]);
    expect(checked).toBeGreaterThan(30);
    for (const lazy of ['@azure/service-bus', '@azure/identity', 'applicationinsights', 'pg', 'durable-functions']) {
      expect(require.resolve(lazy, { paths: [dist] }).startsWith(pkg)).toBe(true);
    }
    // The trigger registers its binding factory in the resolver @azure/functions asks: one copy of
    // @azure/functions-extensions-base for both, as the lockfile lays it out.
    const fromApp = require.resolve('@azure/functions-extensions-base', { paths: [path.join(dist, 'functions/support')] });
    const fromLibrary = require.resolve('@azure/functions-extensions-base', { paths: [path.join(pkg, 'node_modules/@azure/functions')] });
    expect(fromApp).toBe(fromLibrary);
  });

  it('carries the data files the app reads: the mover’s default rules where the built code looks first', () => {
    const run = spawnSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(path.join(pkg, 'dist/src/mover/default-rules.js'))}).defaultRulesFile())`], { cwd: pkg, encoding: 'utf8' });
    expect(run.stdout.trim()).toBe(path.join(pkg, 'dist/src/mover/default-rules.yaml'));
  });
  it('on this project: exactly npm’s production tree (`npm ls --omit=dev`), and without better-sqlite3 only what it alone needs is gone', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lockfile;
    const npm = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .trim()
      .split('\n')
      .map((dir) => path.relative(root, fs.realpathSync(dir)).split(path.sep).join('/'))
      .map((rel) => rel.replace(/^.*?node_modules\//, 'node_modules/'))
      .filter((rel) => rel.startsWith('node_modules/'));
    const all = productionClosure(lock);
    expect(all).toEqual([...new Set(npm)].sort());
    const lean = productionClosure(lock, ['better-sqlite3']);
    const dropped = all.filter((key) => !lean.includes(key));
    expect(dropped).toContain('node_modules/better-sqlite3');
    expect(dropped).toContain('node_modules/prebuild-install');
    // Everything dropped is reachable from better-sqlite3 alone.
    const fromNative = productionClosure({ ...lock, packages: { ...lock.packages, '': { dependencies: { 'better-sqlite3': '*' } } } });
    expect(dropped.filter((key) => !fromNative.includes(key))).toEqual([]);
  });
});
