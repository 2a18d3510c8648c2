import { PackageClosureError, productionClosure, resolveFrom, type Lockfile } from '../../../tools/functions-package/production-closure';

/** A lockfile in npm's v3 layout: hoisted packages, one nested copy, a dev tree, optional and peer edges. */
function lockfile(): Lockfile {
  return {
    lockfileVersion: 3,
    packages: {
      '': { dependencies: { app: '^1', native: '^1', shared: '^1' }, devDependencies: { tool: '^1' } } as Lockfile['packages'][string],
      'node_modules/app': { version: '1.0.0', dependencies: { helper: '^2', shared: '^1' }, optionalDependencies: { 'fsevents-like': '^1' }, peerDependencies: { peer: '*', 'maybe-peer': '*' }, peerDependenciesMeta: { 'maybe-peer': { optional: true } } },
      'node_modules/app/node_modules/helper': { version: '2.0.0' },
      'node_modules/helper': { version: '1.0.0', dev: true },
      'node_modules/peer': { version: '1.0.0' },
      'node_modules/native': { version: '1.0.0', dependencies: { bindings: '^1', shared: '^1' } },
      'node_modules/bindings': { version: '1.0.0' },
      'node_modules/shared': { version: '1.0.0' },
      'node_modules/tool': { version: '1.0.0', dev: true, dependencies: { helper: '^1' } },
    },
  };
}

describe('productionClosure', () => {
  it('follows dependencies as Node resolves them: the nested copy wins, installed peers count, missing optional ones do not', () => {
    expect(productionClosure(lockfile())).toEqual([
      'node_modules/app',
      'node_modules/app/node_modules/helper',
      'node_modules/bindings',
      'node_modules/native',
      'node_modules/peer',
      'node_modules/shared',
    ]);
  });

  it('leaves out an excluded dependency and what only it needs, and keeps what others share', () => {
    expect(productionClosure(lockfile(), ['native'])).toEqual(['node_modules/app', 'node_modules/app/node_modules/helper', 'node_modules/peer', 'node_modules/shared']);
  });

  it('names a required dependency npm did not install, and refuses a lockfile without the packages map', () => {
    const lock = lockfile();
    delete lock.packages['node_modules/peer'];
    expect(() => productionClosure(lock)).toThrow(new PackageClosureError('package-lock.json: node_modules/app needs peer, which is not installed'));
    expect(() => productionClosure({ lockfileVersion: 1, packages: {} } as Lockfile)).toThrow('package-lock.json: lockfileVersion 1 has no "packages" map (npm 7 or later writes it)');
  });

  it('resolves up the tree to the nearest node_modules', () => {
    const { packages } = lockfile();
    expect(resolveFrom(packages, 'node_modules/app', 'helper')).toBe('node_modules/app/node_modules/helper');
    expect(resolveFrom(packages, 'node_modules/tool', 'helper')).toBe('node_modules/helper');
    expect(resolveFrom(packages, 'node_modules/app/node_modules/helper', 'shared')).toBe('node_modules/shared');
    expect(resolveFrom(packages, '', 'nowhere')).toBeUndefined();
  });
});
