/* eslint-disable @typescript-eslint/no-require-imports */
/**
 * A `--require` hook for a child process that loads the built Functions app as the Node worker
 * would on a host whose install has no better-sqlite3:
 * - `better-sqlite3` cannot be resolved (MODULE_NOT_FOUND, as when it is not installed);
 * - `@azure/functions-core`, which the Functions host hands to the worker, is a stand-in that
 *   records `registerFunction` and `registerHook` (as `test/unit/functions/registrations.test.ts`);
 * - at exit, what was registered, every attempt to load better-sqlite3 and every loaded module
 *   file are written as JSON to the file named by `HW_PROBE_OUT`.
 */
const fs = require('node:fs');
const Module = require('node:module');

const registered = [];
const hooks = [];
const nativeAttempts = [];
const core = {
  setProgrammingModel() {},
  log() {},
  registerFunction(metadata) {
    registered.push(metadata.name);
    return { dispose() {} };
  },
  registerHook(name) {
    hooks.push(name);
    return { dispose() {} };
  },
};

const load = Module._load;
Module._load = function (request, parent) {
  if (request === '@azure/functions-core') return core;
  if (request === 'better-sqlite3' || request.startsWith('better-sqlite3/')) {
    nativeAttempts.push(parent ? parent.filename : '(main)');
    const err = new Error(`Cannot find module '${request}'`);
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return load.apply(this, arguments);
};

process.on('exit', () => {
  if (!process.env.HW_PROBE_OUT) return;
  fs.writeFileSync(
    process.env.HW_PROBE_OUT,
    JSON.stringify({ registered, hooks, nativeAttempts, loaded: Object.keys(require.cache) }),
  );
});
