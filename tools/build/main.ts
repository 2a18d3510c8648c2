#!/usr/bin/env node
/**
 * The step of `npm run build` after tsc: copies the data files the built code reads into `dist/`
 * and makes the package's commands executable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BuildDataFileError, copyBuildDataFiles } from './data-files';

function main(): number {
  const projectDir = path.resolve(__dirname, '../../..');
  try {
    copyBuildDataFiles(projectDir, path.join(projectDir, 'dist'));
  } catch (err) {
    if (err instanceof BuildDataFileError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(projectDir, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  for (const bin of Object.values(manifest.bin ?? {})) fs.chmodSync(path.join(projectDir, bin), 0o755);
  return 0;
}

process.exitCode = main();
