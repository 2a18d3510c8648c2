#!/usr/bin/env node
/**
 * `npm run docs:settings`: renders the settings tables of `docs/settings.md` from the registry of
 * app settings (`src/platform/app-settings*.ts`) and writes them between the page's markers.
 * `--check` writes nothing and exits 1 when the page is out of date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { withSettingsTables } from '../../src/platform/settings-doc';

/** The page, from the repository root (this file runs from `tools/` or from `dist/tools/`). */
function pagePath(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.join(dir, 'docs', 'settings.md');
}

function main(argv: string[]): number {
  const file = pagePath();
  const page = fs.readFileSync(file, 'utf8');
  const rendered = withSettingsTables(page);
  if (rendered === page) {
    console.log(`${path.relative(process.cwd(), file)} is up to date`);
    return 0;
  }
  if (argv.includes('--check')) {
    console.error(`${path.relative(process.cwd(), file)} is out of date: run npm run docs:settings`);
    return 1;
  }
  fs.writeFileSync(file, rendered);
  console.log(`${path.relative(process.cwd(), file)}: settings tables written`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
