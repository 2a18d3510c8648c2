#!/usr/bin/env node
/**
 * `npm run package:functions [-- --out <folder>]`: writes the Functions deployment package
 * (default `.deploy/`, which azure.yaml deploys) from the built `dist/` and the installed
 * production dependencies, and prints what it holds.
 */
import path from 'node:path';
import { buildFunctionsPackage, FunctionsPackageError, LOCAL_ONLY_DEPENDENCIES } from './build-package';

/** The default package folder, relative to the project (azure.yaml's `dist`). */
export const DEFAULT_PACKAGE_DIR = '.deploy';

function main(argv: string[]): number {
  const at = argv.indexOf('--out');
  if (at >= 0 && !argv[at + 1]) {
    console.error('--out needs a folder');
    return 2;
  }
  const projectDir = path.resolve(__dirname, '../../..');
  const outDir = path.resolve(projectDir, at >= 0 ? argv[at + 1] : DEFAULT_PACKAGE_DIR);
  try {
    const summary = buildFunctionsPackage({ projectDir, outDir });
    console.log(
      `Functions package in ${summary.outDir}: ${summary.packages} packages, ${summary.files} files, ${(summary.bytes / 1024 / 1024).toFixed(1)} MiB; ` +
        `left out: ${summary.excluded.map((name) => `${name} (${LOCAL_ONLY_DEPENDENCIES[name] ?? 'excluded'})`).join(', ') || 'nothing'}`,
    );
    return 0;
  } catch (err) {
    if (err instanceof FunctionsPackageError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}

process.exitCode = main(process.argv.slice(2));
