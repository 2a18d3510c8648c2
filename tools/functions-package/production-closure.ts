/**
 * Which installed packages the Functions app needs: the production dependencies of package.json
 * and everything they depend on, as npm laid them out (package-lock.json, lockfile version 2 or 3),
 * minus the local-only packages and whatever only they need.
 */

/** One entry of the lockfile's `packages` map (the fields used here). */
interface LockedPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
}

/** The error for a lockfile this cannot read or a dependency it cannot place. */
export class PackageClosureError extends Error {
  override readonly name = 'PackageClosureError';
}

/**
 * Where Node would find `name` when required from the package at `from` (a lockfile key such as
 * `node_modules/a/node_modules/b`, `''` for the project): the nearest `node_modules/<name>` up the tree.
 */
export function resolveFrom(packages: Lockfile['packages'], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (base === '') return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/**
 * The lockfile keys (`node_modules/...`) of every package reachable from the project's
 * `dependencies` except `exclude` (names of direct dependencies left out, e.g. `better-sqlite3`).
 * Optional dependencies and optional peers are followed when installed and skipped when not.
 * @throws PackageClosureError for an old lockfile, or a required dependency npm did not install.
 */
export function productionClosure(lock: Lockfile, exclude: readonly string[] = []): string[] {
  if (!(lock.lockfileVersion >= 2) || !lock.packages?.['']) {
    throw new PackageClosureError(`package-lock.json: lockfileVersion ${String(lock.lockfileVersion)} has no "packages" map (npm 7 or later writes it)`);
  }
  const packages = lock.packages;
  const root = packages[''];
  const included = new Set<string>();
  const pending: Array<{ from: string; name: string; required: boolean }> = Object.keys(root.dependencies ?? {})
    .filter((name) => !exclude.includes(name))
    .map((name) => ({ from: '', name, required: true }));
  while (pending.length > 0) {
    const { from, name, required } = pending.pop() as (typeof pending)[number];
    const key = resolveFrom(packages, from, name);
    if (!key) {
      if (required) throw new PackageClosureError(`package-lock.json: ${from || 'the project'} needs ${name}, which is not installed`);
      continue;
    }
    if (included.has(key)) continue;
    included.add(key);
    const entry = packages[key];
    // A workspace or `file:` link: the package lives where `resolved` points.
    const target = entry.link && entry.resolved ? entry.resolved : key;
    const own = entry.link ? (packages[target] ?? entry) : entry;
    for (const dep of Object.keys(own.dependencies ?? {})) pending.push({ from: target, name: dep, required: true });
    for (const dep of Object.keys(own.optionalDependencies ?? {})) pending.push({ from: target, name: dep, required: false });
    for (const dep of Object.keys(own.peerDependencies ?? {})) {
      pending.push({ from: target, name: dep, required: own.peerDependenciesMeta?.[dep]?.optional !== true });
    }
  }
  return [...included].sort();
}
