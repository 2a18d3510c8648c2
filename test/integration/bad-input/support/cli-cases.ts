/** One invalid invocation: the arguments (`{config}` = a valid config folder, `{broken}` = an invalid one) and how it must fail. */
export interface CliCase {
  argv: string[];
  /** 2 for bad arguments; 1 for a failure the arguments could not have shown (an invalid config folder). */
  exitCode: 1 | 2;
  /** The first line on stderr, which names what is wrong. */
  error: string;
}

const invalidPort = (flag: string, value: string) => `error: option '${flag}' argument '${value}' is invalid. expected a port number 0–65535, got "${value}"`;
const JOBS = 'crm-accounts, crm-contacts, crm-deleted-accounts, erp-numbers';
const QUEUES = 'sbqhigh, sbqnormal, sbqlow, sbqtransitivehigh, sbqtransitivenormal, sbqtransitivelow, sbqignored';

/** Invalid `highwater` invocations. */
export const HIGHWATER_CASES: CliCase[] = [
  { argv: ['nope'], exitCode: 2, error: "error: unknown command 'nope'" },
  { argv: ['--bogus'], exitCode: 2, error: "error: unknown option '--bogus'" },
  { argv: ['--versoin'], exitCode: 2, error: "error: unknown option '--versoin'" },
  { argv: ['config', 'valdate'], exitCode: 2, error: "error: unknown command 'valdate'" },
  { argv: ['config', 'validate', '--config'], exitCode: 2, error: "error: option '--config <dir>' argument missing" },
  { argv: ['config', 'validate', '--confg', '{config}'], exitCode: 2, error: "error: unknown option '--confg'" },
  { argv: ['config', 'push', '{config}'], exitCode: 2, error: "error: too many arguments for 'push'. Expected 0 arguments but got 1." },
  { argv: ['config', 'diff', '--json', '--config'], exitCode: 2, error: "error: option '--config <dir>' argument missing" },
  { argv: ['watermark', 'get'], exitCode: 2, error: "error: missing required argument 'job'" },
  { argv: ['watermark', 'get', 'crm/accounts'], exitCode: 2, error: 'error: job name "crm/accounts" contains \'/\'' },
  { argv: ['watermark', 'reset', 'crm-accounts', '--to', ''], exitCode: 2, error: 'error: --to needs a value; omit it to clear the watermark' },
  { argv: ['watermark', 'reset', 'crm-accounts', '--to'], exitCode: 2, error: "error: option '--to <value>' argument missing" },
  { argv: ['watermark', 'list', 'crm-accounts'], exitCode: 2, error: "error: too many arguments for 'list'. Expected 0 arguments but got 1." },
  { argv: ['runs', '--limit', '0'], exitCode: 2, error: 'error: --limit must be a positive integer, got "0"' },
  { argv: ['runs', '--limit', 'ten'], exitCode: 2, error: 'error: --limit must be a positive integer, got "ten"' },
  { argv: ['runs', '--limit'], exitCode: 2, error: "error: option '--limit <n>' argument missing" },
  { argv: ['runs', 'crm#accounts'], exitCode: 2, error: 'error: job name "crm#accounts" contains \'#\'' },
  { argv: ['runs', 'crm-accounts', 'erp-numbers'], exitCode: 2, error: "error: too many arguments for 'runs'. Expected 1 argument but got 2." },
  { argv: ['run'], exitCode: 2, error: "error: missing required argument 'job'" },
  { argv: ['run', 'crm-accounts', '--limit', '5'], exitCode: 2, error: 'error: --limit applies to --dry-run only' },
  { argv: ['run', 'crm-accounts', '--dry-run', '--limit', '0'], exitCode: 2, error: 'error: --limit must be a positive integer, got "0"' },
  { argv: ['run', 'nope', '--config', '{config}'], exitCode: 2, error: `error: unknown job "nope" in {config}; known jobs: ${JOBS}` },
  { argv: ['queues', 'sbqhigh'], exitCode: 2, error: "error: too many arguments for 'queues'. Expected 0 arguments but got 1." },
  { argv: ['queues', '--all'], exitCode: 2, error: "error: unknown option '--all'" },
  { argv: ['start', '--port', 'abc'], exitCode: 2, error: invalidPort('--port <n>', 'abc') },
  { argv: ['start', '--port', '70000'], exitCode: 2, error: invalidPort('--port <n>', '70000') },
  { argv: ['start', '--port', '-1'], exitCode: 2, error: invalidPort('--port <n>', '-1') },
  { argv: ['start', '--drain-timeout', '0'], exitCode: 2, error: 'error: option \'--drain-timeout <seconds>\' argument \'0\' is invalid. expected a positive integer, got "0"' },
  { argv: ['start', '--drain-timeout', '1.5'], exitCode: 2, error: 'error: option \'--drain-timeout <seconds>\' argument \'1.5\' is invalid. expected a positive integer, got "1.5"' },
  { argv: ['start', '--stall-timeout', '0'], exitCode: 2, error: 'error: option \'--stall-timeout <seconds>\' argument \'0\' is invalid. expected a positive integer, got "0"' },
  { argv: ['start', '--onec'], exitCode: 2, error: "error: unknown option '--onec'" },
  { argv: ['start', '--concurrency', 'urgent=4'], exitCode: 2, error: 'error: option \'--concurrency <n|priority=n,…>\' argument \'urgent=4\' is invalid. unknown priority "urgent" (known: high, normal, low)' },
  { argv: ['demo', '--concurrency', '0'], exitCode: 2, error: 'error: option \'--concurrency <n|priority=n,…>\' argument \'0\' is invalid. expected a positive integer or priority=n pairs (e.g. normal=32,low=4), got "0"' },
  { argv: ['start', '--once', '--port', '0', '--config', '{broken}'], exitCode: 1, error: 'error: jobs.yaml: jobs[0].schedule (job "crm-accounts"): invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59' },
  { argv: ['demo', 'change-account'], exitCode: 2, error: "error: missing required argument 'id'" },
  { argv: ['demo', 'change-account', 'A-0001'], exitCode: 2, error: "error: missing required argument 'name'" },
  { argv: ['demo', '--port', 'x'], exitCode: 2, error: invalidPort('--port <n>', 'x') },
  { argv: ['demo', '--reset=yes'], exitCode: 2, error: "error: unknown option '--reset=yes'" },
];

/** Invalid `dead-letter-mover` invocations (`{data}` = the local bus folder). */
export const MOVER_CASES: CliCase[] = [
  { argv: [], exitCode: 2, error: "error: required option '-q, --queue <name>' not specified" },
  { argv: ['--queue'], exitCode: 2, error: "error: option '-q, --queue <name>' argument missing" },
  { argv: ['--queue', 'sbqhigh', '--max', '0'], exitCode: 2, error: "error: option '--max <n>' argument '0' is invalid. expected a positive integer." },
  { argv: ['--queue', 'sbqhigh', '--older-than', 'soon'], exitCode: 2, error: "error: option '--older-than <duration>' argument 'soon' is invalid. expected a duration like 30m, 2h, 1h30m, 7d or PT1H." },
  { argv: ['--queue', 'sbqhigh', '--data-dir', '{data}', '--rules', '{data}/missing.yaml'], exitCode: 2, error: 'error: {data}/missing.yaml: cannot read the rules file (no such file)' },
  // Queue names are settings, not configuration: an unknown one is named with or without --config.
  { argv: ['--queue', 'nope'], exitCode: 2, error: `error: --queue nope: unknown queue (known: ${QUEUES})` },
  { argv: ['--queue', 'nope', '--data-dir', '{data}'], exitCode: 2, error: `error: --queue nope: unknown queue (known: ${QUEUES})` },
  { argv: ['--queue', 'nope', '--data-dir', '{data}', '--config', '{config}'], exitCode: 2, error: `error: --queue nope: unknown queue (known: ${QUEUES})` },
];
