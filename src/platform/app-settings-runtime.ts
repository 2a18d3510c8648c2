import { defineSetting } from './setting-spec';
import { oneOf, port, queueName, schedule, secondsAsMs, secondsAsMsOrOff, text, textOr, timeZone, wholeNumber } from './setting-schemas';
import { DEFAULT_QUEUES } from './queue-topology';

/** App settings of what runs: queues, schedules, long runs, local state, HTTP and push. */

const DEFAULT_GET_CHANGES_SCHEDULE = '*/10 * * * * *';

/** Largest `HIGHWATER_QUEUE_DEPTH_LIMIT`: above it the limit would never be reached in practice; set 0 to turn it off. */
const MAX_QUEUE_DEPTH_LIMIT = 10_000_000;

/** Longest `HIGHWATER_EXECUTE_WAIT_SECONDS`: still under the 230 s after which Azure's front end drops a request. */
const MAX_EXECUTE_WAIT_SECONDS = 200;

/**
 * Default `HIGHWATER_EXECUTE_WAIT_SECONDS`: 100 s. Azure's front end drops an HTTP request after
 * 230 s whatever `functionTimeout` says; the default leaves room for a cold start and a slow caller.
 */
export const DEFAULT_EXECUTE_WAIT_SECONDS = 100;

/**
 * Default `HIGHWATER_LOCAL_PROCESSING`, measured end to end (`npm run bench -- --sizes
 * 100000,1000000 --processing inline,worker --runs 2`, docs/benchmarks.md "End to end",
 * 2026-12-02, load 2.4–3.9 on 2 shared cores): the worker tied at 100k (11.2k vs 11.3k rows/s) and
 * gained 14% at 1M (13.2k vs 11.6k) but peaked at 199 / 236 MB of RSS against 138 / 165 MB inline
 * — over the 175 MB bound. Inline until the worker's memory is cut; `worker` is there for a
 * machine with a core to spare.
 */
export const DEFAULT_LOCAL_PROCESSING = 'inline';

const queue = (name: string, fallback: string, role: string) =>
  defineSetting({
    name,
    readBy: 'code',
    type: 'queue name',
    default: `\`${fallback}\``,
    description: `${role}. Every queue setting needs a queue of its own.`,
    local: 'the default',
    azure: 'the default',
    section: 'queues',
    schema: queueName(fallback),
  });

const runSeconds = (name: string, defaultSeconds: number, description: string) =>
  defineSetting({
    name,
    readBy: 'code',
    type: 'seconds ≥ 0',
    default: `\`${defaultSeconds}\``,
    description,
    local: 'not set',
    azure: 'not set',
    section: 'runs',
    optional: true,
    schema: secondsAsMs(defaultSeconds * 1000),
  });

const { work, transitive } = DEFAULT_QUEUES;

export const RUNTIME_DECLARATIONS = {
  queueHigh: queue('QUEUE_HIGH', work.high, 'Work queue of priority high; the triggers bind it as `%QUEUE_HIGH%`'),
  queueNormal: queue('QUEUE_NORMAL', work.normal, 'Work queue of priority normal'),
  queueLow: queue('QUEUE_LOW', work.low, 'Work queue of priority low'),
  queueTransitiveHigh: queue('QUEUE_TRANSITIVE_HIGH', transitive.high, 'Parked messages of priority high: a dependency is not met yet'),
  queueTransitiveNormal: queue('QUEUE_TRANSITIVE_NORMAL', transitive.normal, 'Parked messages of priority normal'),
  queueTransitiveLow: queue('QUEUE_TRANSITIVE_LOW', transitive.low, 'Parked messages of priority low'),
  queueIgnored: queue('QUEUE_IGNORED', DEFAULT_QUEUES.ignored, 'Outdated messages (the target is newer)'),
  timeZone: defineSetting({
    name: 'HIGHWATER_TIMEZONE',
    readBy: 'code',
    type: 'IANA time zone',
    default: '`UTC`',
    description: 'Time zone of job schedules.',
    local: '`UTC`',
    azure: 'parameter `timeZone`, default `UTC`',
    section: 'runs',
    schema: timeZone('UTC'),
  }),
  getChangesSchedule: defineSetting({
    name: 'GetChangesSchedule',
    readBy: 'code',
    type: 'NCRONTAB (6 fields)',
    default: `\`${DEFAULT_GET_CHANGES_SCHEDULE}\``,
    description:
      'How often the GetChanges timer (`%GetChangesSchedule%`) and the local host\u2019s scheduler look for due jobs; each job\u2019s own `schedule` decides when it runs. The local host also wakes at each occurrence of a finer job schedule (a `*/2 * * * * *` job runs every 2 s); the Functions app looks only on this schedule, so there such a job runs at each tick.',
    local: `\`${DEFAULT_GET_CHANGES_SCHEDULE}\``,
    azure: `parameter \`getChangesSchedule\`, default \`${DEFAULT_GET_CHANGES_SCHEDULE}\``,
    section: 'runs',
    schema: schedule(DEFAULT_GET_CHANGES_SCHEDULE),
  }),
  queueDepthLimit: defineSetting({
    name: 'HIGHWATER_QUEUE_DEPTH_LIMIT',
    readBy: 'code',
    type: `messages 0–${MAX_QUEUE_DEPTH_LIMIT}`,
    default: '`5000`',
    description:
      'Backpressure of detection: a scheduled run stops after sending this many messages, or once its priority queue holds this many, and resumes when the queue is at half ' +
      '([long-runs.md](long-runs.md#backpressure-fairness-within-a-priority-queue)); `0` = off.',
    local: 'not set',
    azure: 'not set',
    section: 'runs',
    optional: true,
    schema: wholeNumber(0, MAX_QUEUE_DEPTH_LIMIT, 5_000, `expected a whole number of messages from 0 (no limit) to ${MAX_QUEUE_DEPTH_LIMIT}`),
  }),
  checkpointSeconds: runSeconds(
    'HIGHWATER_RESUME_CHECKPOINT_SECONDS',
    5,
    'Least time between two saved resume cursors of a run ([long-runs.md](long-runs.md)); `0` saves after every page.',
  ),
  retryBaseSeconds: runSeconds('HIGHWATER_RETRY_BASE_SECONDS', 30, 'First wait of a job after a failed run; it doubles with each failure in a row.'),
  retryMaxSeconds: runSeconds('HIGHWATER_RETRY_MAX_SECONDS', 1800, 'Longest wait of a job between failed runs.'),
  budgetSeconds: defineSetting({
    name: 'HIGHWATER_RUN_BUDGET_SECONDS',
    readBy: 'code',
    type: 'seconds ≥ 0',
    default: 'two thirds of `functionTimeout`',
    description: 'Time budget of a timer run: it stops between pages once spent, and the next tick resumes; `0` = no budget. Manual runs have none.',
    local: 'not set',
    azure: 'not set',
    section: 'runs',
    optional: true,
    schema: secondsAsMsOrOff(),
  }),
  functionTimeout: defineSetting({
    name: 'AzureFunctionsJobHost__functionTimeout',
    readBy: 'code',
    type: '`hh:mm:ss`',
    default: '`functionTimeout` of `host.json`, else 30 min',
    description: 'The Functions host\u2019s `functionTimeout` overridden as an app setting; the code reads it for the time budget (unreadable text: 30 min).',
    local: 'not set',
    azure: 'not set',
    section: 'runs',
    optional: true,
    schema: text(),
  }),
  requeueConfig: defineSetting({
    name: 'HIGHWATER_REQUEUE_CONFIG',
    readBy: 'code',
    type: 'folder',
    description:
      'Functions app: the folder of the deployed app (relative to its root) holding `requeue.yaml`, the scheduled requeue of parked messages; unset or empty, it is off. ' +
      'The local host reads it from its config folder.',
    local: 'empty',
    azure: 'empty',
    section: 'runs',
    schema: text(),
  }),
  dataDir: defineSetting({
    name: 'HIGHWATER_DATA_DIR',
    readBy: 'code',
    type: 'folder',
    default: '`.data`',
    description: 'Local state: Azurite data, the local bus, local metrics (relative to the working folder).',
    local: '`.data`',
    azure: '`/tmp/highwater` (nothing is kept there in Azure)',
    section: 'localState',
    schema: textOr('.data'),
  }),
  azuritePort: defineSetting({
    name: 'HIGHWATER_AZURITE_PORT',
    readBy: 'code',
    type: 'port 1–65535',
    default: '`10002`',
    description: 'Table port of the local Azurite, used when no storage is set: one serving this data folder is reused, one serving another folder is refused.',
    local: '`10002`',
    azure: '`10002` (unused: Azure has storage)',
    section: 'localState',
    schema: port(),
  }),
  localTables: defineSetting({
    name: 'HIGHWATER_LOCAL_TABLES',
    readBy: 'code',
    type: '`azurite` \\| `sqlite`',
    default: '`azurite`',
    description:
      'Where the local host keeps its tables when no storage is set: `azurite` (a local Azurite, as the Functions host would use) or `sqlite` (`<data folder>/tables.db`, no server process). ' +
      'The host, its worker and CLI commands must agree on it; `highwater tables copy --to sqlite` moves the tables.',
    local: '`azurite`',
    azure: '`azurite` (unused: Azure has storage)',
    section: 'localState',
    schema: oneOf(['azurite', 'sqlite'], 'azurite', 'expected azurite or sqlite'),
  }),
  localBusSynchronous: defineSetting({
    name: 'HIGHWATER_LOCAL_BUS_SYNCHRONOUS',
    readBy: 'code',
    type: '`NORMAL` \\| `FULL`',
    default: '`NORMAL`',
    description:
      'Local bus durability: `NORMAL` (a send survives a crash of the process) or `FULL` (a power loss too: each send, dead-letter and queue declaration waits for an fdatasync of the bus\u2019s WAL).',
    local: '`NORMAL`',
    azure: '`NORMAL` (unused: Azure runs on Service Bus)',
    section: 'localState',
    schema: oneOf(['NORMAL', 'FULL'], undefined, 'must be NORMAL or FULL'),
  }),
  localProcessing: defineSetting({
    name: 'HIGHWATER_LOCAL_PROCESSING',
    readBy: 'code',
    type: '`worker` \\| `inline`',
    default: `\`${DEFAULT_LOCAL_PROCESSING}\``,
    description:
      'Where the local host runs its queue processors: `inline` (the main thread) or `worker` (a worker thread, the second core: faster on a large first load, more memory). Unused by the Functions app.',
    local: '`inline`',
    azure: '`inline` (unused)',
    section: 'localState',
    schema: oneOf(['worker', 'inline'], DEFAULT_LOCAL_PROCESSING, 'must be worker or inline'),
  }),
  executeWaitSeconds: defineSetting({
    name: 'HIGHWATER_EXECUTE_WAIT_SECONDS',
    readBy: 'code',
    type: `whole seconds 0–${MAX_EXECUTE_WAIT_SECONDS}`,
    default: `\`${DEFAULT_EXECUTE_WAIT_SECONDS}\``,
    description:
      'How long `POST /api/jobs/{name}/execute` waits for its run before answering `202` with a status URL (`GET /api/runs/{id}`); dry runs always wait.',
    local: '`100`',
    azure: '`100`',
    section: 'http',
    schema: wholeNumber(0, MAX_EXECUTE_WAIT_SECONDS, DEFAULT_EXECUTE_WAIT_SECONDS, `expected whole seconds from 0 to ${MAX_EXECUTE_WAIT_SECONDS}`),
  }),
  dataverseEventsQueue: defineSetting({
    name: 'HIGHWATER_DATAVERSE_EVENTS_QUEUE',
    readBy: 'code',
    type: 'queue name',
    description:
      'The Functions app registers `ReceiveDataverseEvents`, a Service Bus trigger on this queue of the `ServiceBusConnection` namespace, only when it is set: ' +
      'the queue a Dataverse service endpoint (contract Queue, message format JSON) posts to. The local host takes Dataverse events over HTTP or `highwater push dataverse-file`.',
    local: 'empty',
    azure: 'empty; set it to that queue, and create the queue',
    section: 'push',
    schema: text(),
  }),
};
