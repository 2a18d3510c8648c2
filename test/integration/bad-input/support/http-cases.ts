/** One malformed request and the JSON error it must get. */
export interface HttpCase {
  label: string;
  method: string;
  /** Sent as is (no URL normalization), so bad percent-encoding reaches the host. */
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  code: string;
  message: string;
  /** The `Allow` header a 405 must carry. */
  allow?: string;
}

const QUEUES = 'sbqhigh, sbqnormal, sbqlow, sbqtransitivehigh, sbqtransitivenormal, sbqtransitivelow, sbqignored';
const EXECUTE = '/api/jobs/crm-accounts/execute';
const START = '/api/orchestrators/GetChangesOrchestrator';
const bad = (message: string) => ({ status: 400, code: 'BadRequest', message });
const notAllowed = (method: string, path: string, allow: string) => ({
  status: 405,
  code: 'MethodNotAllowed',
  message: `${method} not allowed on ${path} (allowed: ${allow})`,
  allow,
});
const noRoute = (path: string) => ({ status: 404, code: 'NotFound', message: `no route for ${path}` });

/** Malformed requests to every route of the local host, with the documented answers. */
export const HTTP_CASES: HttpCase[] = [
  // POST /api/jobs/{name}/execute
  { label: 'execute: unknown job', method: 'POST', path: '/api/jobs/nope/execute', status: 404, code: 'JobNotFound', message: 'unknown job "nope"' },
  { label: 'execute: encoded slash in the name', method: 'POST', path: '/api/jobs/crm%2Faccounts/execute', status: 404, code: 'JobNotFound', message: 'unknown job "crm/accounts"' },
  { label: 'execute: bad percent-encoding', method: 'POST', path: '/api/jobs/%E0%A4%A/execute', ...bad('malformed percent-encoding in /api/jobs/%E0%A4%A/execute') },
  { label: 'execute: body not JSON', method: 'POST', path: EXECUTE, body: '{', ...bad("body: not JSON (Expected property name or '}' in JSON at position 1)") },
  { label: 'execute: body not UTF-8', method: 'POST', path: EXECUTE, body: Buffer.from([0xff, 0xfe]), ...bad('body: not JSON (Unexpected token \'\ufffd\', "\ufffd\ufffd" is not valid JSON)') },
  { label: 'execute: body a list', method: 'POST', path: EXECUTE, body: '[1]', ...bad('body: expected a JSON object') },
  { label: 'execute: body null', method: 'POST', path: EXECUTE, body: 'null', ...bad('body: expected a JSON object') },
  { label: 'execute: body a string', method: 'POST', path: EXECUTE, body: '"dryRun"', ...bad('body: expected a JSON object') },
  { label: 'execute: dryRun not boolean', method: 'POST', path: EXECUTE, body: '{"dryRun":"yes"}', ...bad('body.dryRun: expected a boolean') },
  { label: 'execute: limit 0', method: 'POST', path: EXECUTE, body: '{"dryRun":true,"limit":0}', ...bad('body.limit: expected an integer from 1 to 10000') },
  { label: 'execute: limit too large', method: 'POST', path: EXECUTE, body: '{"dryRun":true,"limit":10001}', ...bad('body.limit: expected an integer from 1 to 10000') },
  { label: 'execute: limit fraction', method: 'POST', path: EXECUTE, body: '{"dryRun":true,"limit":2.5}', ...bad('body.limit: expected an integer from 1 to 10000') },
  { label: 'execute: limit as text', method: 'POST', path: EXECUTE, body: '{"dryRun":true,"limit":"5"}', ...bad('body.limit: expected an integer from 1 to 10000') },
  { label: 'execute: unknown property', method: 'POST', path: EXECUTE, body: '{"force":true}', ...bad('body.force: unknown property (allowed: dryRun, limit)') },
  { label: 'execute: body over 1 MB', method: 'POST', path: EXECUTE, body: `{"pad":"${'x'.repeat(1024 * 1024)}"}`, status: 413, code: 'PayloadTooLarge', message: 'request body over 1048576 bytes' },
  { label: 'execute: cross-origin POST', method: 'POST', path: EXECUTE, headers: { origin: 'https://evil.example' }, status: 403, code: 'Forbidden', message: 'cross-origin request from https://evil.example refused' },
  { label: 'execute: GET', method: 'GET', path: EXECUTE, ...notAllowed('GET', EXECUTE, 'POST') },
  { label: 'execute: PUT', method: 'PUT', path: EXECUTE, body: '{}', ...notAllowed('PUT', EXECUTE, 'POST') },
  { label: 'execute: DELETE', method: 'DELETE', path: EXECUTE, ...notAllowed('DELETE', EXECUTE, 'POST') },
  { label: 'execute: empty name', method: 'POST', path: '/api/jobs//execute', ...noRoute('/api/jobs//execute') },
  { label: 'execute: extra segment', method: 'POST', path: `${EXECUTE}/now`, ...noRoute(`${EXECUTE}/now`) },
  { label: 'execute: no action segment', method: 'POST', path: '/api/jobs/crm-accounts', ...noRoute('/api/jobs/crm-accounts') },

  // GET /api/health
  { label: 'health: POST', method: 'POST', path: '/api/health', ...notAllowed('POST', '/api/health', 'GET') },
  { label: 'health: DELETE', method: 'DELETE', path: '/api/health', ...notAllowed('DELETE', '/api/health', 'GET') },
  { label: 'health: extra segment', method: 'GET', path: '/api/health/deep', ...noRoute('/api/health/deep') },

  // POST /api/orchestrators/GetChangesOrchestrator, GET /api/orchestrators/instances/{id}
  { label: 'durable start: body not JSON', method: 'POST', path: START, body: 'jobs=a', ...bad('body: not JSON (Unexpected token \'j\', "jobs=a" is not valid JSON)') },
  { label: 'durable start: body a list', method: 'POST', path: START, body: '["crm-accounts"]', ...bad('body: expected a JSON object') },
  { label: 'durable start: unknown property', method: 'POST', path: START, body: '{"job":["crm-accounts"]}', ...bad('body.job: unknown property (allowed: jobs)') },
  { label: 'durable start: jobs not a list', method: 'POST', path: START, body: '{"jobs":"crm-accounts"}', ...bad('body.jobs: expected an array of job names') },
  { label: 'durable start: jobs empty', method: 'POST', path: START, body: '{"jobs":[]}', ...bad('body.jobs: expected at least one job name') },
  { label: 'durable start: job not a name', method: 'POST', path: START, body: '{"jobs":[1]}', ...bad('body.jobs[0]: expected a job name') },
  { label: 'durable start: job twice', method: 'POST', path: START, body: '{"jobs":["crm-accounts","crm-accounts"]}', ...bad('body.jobs[1]: "crm-accounts" is listed twice') },
  { label: 'durable start: unknown job', method: 'POST', path: START, body: '{"jobs":["crm-accounts","nope"]}', ...bad('body.jobs[1]: unknown job "nope"') },
  { label: 'durable start: too many jobs', method: 'POST', path: START, body: JSON.stringify({ jobs: Array.from({ length: 501 }, (_, i) => `j${i}`) }), ...bad('body.jobs: expected at most 500 job names') },
  { label: 'durable start: cross-origin', method: 'POST', path: START, headers: { origin: 'http://localhost:3000' }, status: 403, code: 'Forbidden', message: 'cross-origin request from http://localhost:3000 refused' },
  { label: 'durable start: GET', method: 'GET', path: START, ...notAllowed('GET', START, 'POST') },
  { label: 'durable start: unknown orchestrator', method: 'POST', path: '/api/orchestrators/Other', ...noRoute('/api/orchestrators/Other') },
  { label: 'durable status: unknown instance', method: 'GET', path: '/api/orchestrators/instances/nope', status: 404, code: 'InstanceNotFound', message: 'unknown instance "nope"' },
  { label: 'durable status: bad percent-encoding', method: 'GET', path: '/api/orchestrators/instances/%ZZ', ...bad('malformed percent-encoding in /api/orchestrators/instances/%ZZ') },
  { label: 'durable status: POST', method: 'POST', path: '/api/orchestrators/instances/x', ...notAllowed('POST', '/api/orchestrators/instances/x', 'GET') },

  // The status page: GET /, /api/status, /dead-letters, /api/status/dead-letters, /dead-letters/report
  { label: 'status page: POST', method: 'POST', path: '/', ...notAllowed('POST', '/', 'GET') },
  { label: 'status JSON: DELETE', method: 'DELETE', path: '/api/status', ...notAllowed('DELETE', '/api/status', 'GET') },
  { label: 'dead-letter page: POST', method: 'POST', path: '/dead-letters', ...notAllowed('POST', '/dead-letters', 'GET') },
  { label: 'dead-letter JSON: PUT', method: 'PUT', path: '/api/status/dead-letters', ...notAllowed('PUT', '/api/status/dead-letters', 'GET') },
  { label: 'mover report: no queue', method: 'GET', path: '/dead-letters/report', ...bad(`query.queue: expected one of ${QUEUES}`) },
  { label: 'mover report: unknown queue', method: 'GET', path: '/dead-letters/report?queue=sbqhigh%2Fx', ...bad(`query.queue: expected one of ${QUEUES}`) },
  { label: 'mover report: deadLetter not boolean', method: 'GET', path: '/dead-letters/report?queue=sbqhigh&deadLetter=yes', ...bad('query.deadLetter: expected true or false') },

  // Paths that are no route at all.
  { label: 'unknown: /api', method: 'GET', path: '/api', ...noRoute('/api') },
  { label: 'unknown: /api/jobs', method: 'GET', path: '/api/jobs', ...noRoute('/api/jobs') },
  { label: 'unknown: /favicon.ico', method: 'GET', path: '/favicon.ico', ...noRoute('/favicon.ico') },
  { label: 'unknown: bad percent-encoding', method: 'GET', path: '/%ZZ', ...noRoute('/%ZZ') },
];
