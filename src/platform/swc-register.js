/*
 * Lets plain `node` run the TypeScript sources without a build:
 *   node -r ./src/platform/swc-register.js bench/bus/run.ts
 * Each .ts file is compiled with @swc/core when required (same settings as jest.config.js).
 * Compiled output is cached under <tmpdir>/highwater-swc-cache by content hash, and @swc/core
 * is loaded only on a cache miss: a warm child process carries no compiler in its memory, which
 * keeps benchmark RSS figures honest. For runs from the sources only (tests, their child processes,
 * benchmarks, worker threads started from `.ts`): the build compiles to `dist/` and needs no hook.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload: it runs before TypeScript can be loaded */
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');

const options = {
  jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const cacheDir = path.join(os.tmpdir(), 'highwater-swc-cache');
const salt = JSON.stringify(options) + process.version;

function compile(source, filename) {
  const key = crypto.createHash('sha256').update(salt).update(filename).update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    // Not compiled yet: compile below.
  }
  const { code } = require('@swc/core').transformSync(source, { ...options, filename });
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    // Write then rename, so that a concurrent reader never sees half a file.
    const tmp = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, cached);
  } catch {
    // A cache that cannot be written only costs speed.
  }
  return code;
}

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  module._compile(compile(fs.readFileSync(filename, 'utf8'), filename), filename);
};
