/**
 * The layer order of Highwater (docs/architecture.md explains it), checked by
 * `test/unit/infra/layers.test.ts` in `npm test`. A module may import its own layer and any lower
 * one, never a higher one; the application services do not import each other; no cycles.
 * There is no list of exceptions: an import that breaks the order is moved, not allowed.
 */

/** Lowest first. Each layer is a list of rooms (folders or files), written as path patterns. */
const LAYERS = [
  { name: 'platform', rooms: ['^src/platform/'] },
  { name: 'sqlite', rooms: ['^src/sqlite/'] },
  { name: 'model', rooms: ['^src/model/'] },
  { name: 'storage', rooms: ['^src/storage/'] },
  { name: 'bus', rooms: ['^src/bus/'] },
  { name: 'telemetry', rooms: ['^src/telemetry/'] },
  { name: 'connector base', rooms: ['^connectors/base/'] },
  { name: 'sql and odata connectors', rooms: ['^connectors/sql/', '^connectors/odata/'] },
  { name: 'dataverse and business central connectors', rooms: ['^connectors/dataverse/', '^connectors/businesscentral/'] },
  { name: 'connector registry', rooms: ['^connectors/[^/]+[.]ts$'] },
  { name: 'two-way sync', rooms: ['^src/twoway/'] },
  { name: 'config', rooms: ['^src/config/'] },
  { name: 'application', rooms: ['^src/detect/', '^src/process/', '^src/mover/', '^src/push/'], separate: true },
  { name: 'http', rooms: ['^src/http/'] },
  { name: 'runtime', rooms: ['^src/runtime/'] },
  // The demo's data and helpers: an application of its own, which the CLI runs (`highwater demo`).
  { name: 'demo', rooms: ['^src/demo/'] },
  { name: 'entries', rooms: ['^src/host/', '^src/cli/', '^functions/', '^tools/', '^bench/'] },
];

const either = (rooms) => rooms.map((room) => `(${room})`).join('|');

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.name.replace(/\W+/g, '-')}`,
  comment: `${layer.name} may import only its own and lower layers`,
  severity: 'error',
  from: { path: either(layer.rooms) },
  to: { path: either(LAYERS.slice(i + 1).flatMap((higher) => higher.rooms)) },
}));

const separate = LAYERS.filter((layer) => layer.separate).flatMap((layer) =>
  layer.rooms.map((room) => ({
    name: `no-sideways-from-${room.replace(/\W+/g, '-').replace(/^-|-$/g, '')}`,
    comment: `the ${layer.name} services do not import each other`,
    severity: 'error',
    from: { path: room },
    to: { path: either(layer.rooms.filter((other) => other !== room)) },
  })),
);

const allRooms = either(LAYERS.flatMap((layer) => layer.rooms));

module.exports = {
  forbidden: [
    ...upward,
    ...separate,
    { name: 'in-a-layer', comment: 'every importing module belongs to a layer above (add its folder there)', severity: 'error', from: { pathNot: allRooms }, to: {} },
    { name: 'no-cycles', comment: 'no import cycles', severity: 'error', from: {}, to: { circular: true } },
    { name: 'no-unresolvable', comment: 'every import resolves', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test)/' },
    // Type-only imports count: a type from a higher layer is a dependency on it all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
