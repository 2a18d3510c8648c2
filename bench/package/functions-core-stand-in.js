/* eslint-disable @typescript-eslint/no-require-imports */
/**
 * `--require` hook for the cold-import measurement: answers `require('@azure/functions-core')`
 * (which the Functions host provides to the worker) with a stand-in that accepts registrations,
 * so `@azure/functions` registers as in the worker instead of switching to its test mode.
 */
const Module = require('node:module');

const core = {
  setProgrammingModel() {},
  log() {},
  registerFunction: () => ({ dispose() {} }),
  registerHook: () => ({ dispose() {} }),
};
const load = Module._load;
Module._load = function (request) {
  if (request === '@azure/functions-core') return core;
  return load.apply(this, arguments);
};
