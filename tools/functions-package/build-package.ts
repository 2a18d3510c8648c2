import fs from 'node:fs';
import path from 'node:path';
import { BUILD_DATA_FILES } from '../build/data-files';
import { productionClosure, type Lockfile } from './production-closure';

/**
 * Direct dependencies the Functions package leaves out, with why. Only the local host uses them;
 * the Functions app loads without them (test/integration/functions/no-native-modules.test.ts).
 */
export const LOCAL_ONLY_DEPENDENCIES: Readonly<Record<string, string>> = {
  'better-sqlite3': 'native; the local bus, SQLite tables and sqlite connections, which run on the local host only',
};

/** Files the app reads at run time outside `dist/`: project path → path in the package. */
const DATA_FILES: ReadonlyArray<[string, string]> = [['host.json', 'host.json']];

/**
 * Files of installed packages nothing loads at run time: type declarations and TypeScript sources,
 * source maps, Markdown. About 60% of the bytes of the production tree. Licences stay.
 */
const DEV_ONLY_FILE = /\.(d\.)?[mc]?ts$|\.map$|\.md$/i;

/** Built folders the Functions app never loads (the demo's seeding and helpers, which need better-sqlite3). */
const SKIPPED_DIST = ['dist/src/demo'];

export interface FunctionsPackageOptions {
  /** The project: package.json, package-lock.json, host.json, a built `dist/`, an installed `node_modules/`. */
  projectDir: string;
  /** Where the package is written; emptied first. Must not be the project folder itself. */
  outDir: string;
  /** Direct dependencies to leave out. Default the names of {@link LOCAL_ONLY_DEPENDENCIES}. */
  exclude?: readonly string[];
}

export interface FunctionsPackageSummary {
  outDir: string;
  /** Installed packages copied (lockfile entries). */
  packages: number;
  files: number;
  bytes: number;
  /** Direct dependencies left out. */
  excluded: string[];
}

/** A package that cannot be built: the message says what is missing and where. */
export class FunctionsPackageError extends Error {
  override readonly name = 'FunctionsPackageError';
}

/**
 * Writes the Functions deployment package: `package.json` (production dependencies minus the
 * excluded ones, no scripts), `host.json`, the built JavaScript of `dist/` (no source maps or type
 * declarations) and the installed production dependencies the lockfile says they need (without
 * their type declarations, source maps and Markdown).
 * Symbolic links are followed: the package holds real files only.
 * @throws FunctionsPackageError when the build, the lockfile or an installed package is missing.
 */
export function buildFunctionsPackage(options: FunctionsPackageOptions): FunctionsPackageSummary {
  const project = path.resolve(options.projectDir);
  const out = path.resolve(options.outDir);
  if (out === project || project.startsWith(`${out}${path.sep}`)) throw new FunctionsPackageError(`the package folder ${out} would contain the project ${project}`);
  const exclude = [...(options.exclude ?? Object.keys(LOCAL_ONLY_DEPENDENCIES))];
  const need = (relative: string, hint: string) => {
    const file = path.join(project, relative);
    if (!fs.existsSync(file)) throw new FunctionsPackageError(`${file} is missing: ${hint}`);
    return file;
  };
  need('dist/functions/index.js', 'build first (npm run build)');
  // The build copies the data files the code reads (the mover's default rules) into dist/.
  for (const file of BUILD_DATA_FILES) need(`dist/${file}`, 'build with npm run build, which copies it there');
  const manifest = JSON.parse(fs.readFileSync(need('package.json', 'not a project folder'), 'utf8')) as Record<string, unknown>;
  const lock = JSON.parse(fs.readFileSync(need('package-lock.json', 'the package is built from the lockfile (npm install writes it)'), 'utf8')) as Lockfile;
  const closure = productionClosure(lock, exclude);

  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const tally = { files: 0, bytes: 0 };
  const copyFile = (from: string, to: string) => {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    tally.files++;
    tally.bytes += fs.statSync(to).size;
  };

  const dependencies = Object.fromEntries(Object.entries((manifest.dependencies ?? {}) as Record<string, string>).filter(([name]) => !exclude.includes(name)));
  const trimmed = { name: manifest.name, version: manifest.version, private: true, main: manifest.main, engines: manifest.engines, dependencies };
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(trimmed, null, 2)}\n`);
  tally.files++;
  for (const [from, to] of DATA_FILES) copyFile(need(from, 'part of the project'), path.join(out, to));

  copyTree(path.join(project, 'dist'), path.join(out, 'dist'), (rel) => {
    if (SKIPPED_DIST.some((skipped) => `dist/${rel}`.startsWith(`${skipped}/`))) return false;
    return rel.endsWith('.js') || rel.endsWith('.json') || BUILD_DATA_FILES.includes(rel);
  }, copyFile);
  for (const key of closure) {
    const from = path.join(project, key);
    if (!fs.existsSync(path.join(from, 'package.json'))) throw new FunctionsPackageError(`${from} is not installed (package-lock.json lists it): run npm install`);
    // Nested node_modules are entries of their own in the lockfile (and may be dev-only): skip them here.
    copyTree(from, path.join(out, key), (rel) => !rel.split('/').includes('node_modules') && !DEV_ONLY_FILE.test(rel), copyFile);
  }
  return { outDir: out, packages: closure.length, files: tally.files, bytes: tally.bytes, excluded: exclude };
}

/** Copies the files under `from` that `keep` accepts (by path relative to `from`, `/`-separated), following symlinks. */
function copyTree(from: string, to: string, keep: (relative: string) => boolean, copyFile: (from: string, to: string) => void, relative = ''): void {
  for (const entry of fs.readdirSync(path.join(from, relative))) {
    const rel = relative === '' ? entry : `${relative}/${entry}`;
    const source = path.join(from, rel);
    const stat = fs.statSync(source);
    if (stat.isDirectory()) {
      if (entry === 'node_modules' && !keep(rel)) continue;
      copyTree(from, to, keep, copyFile, rel);
    } else if (stat.isFile() && keep(rel)) {
      copyFile(source, path.join(to, rel));
    }
  }
}
