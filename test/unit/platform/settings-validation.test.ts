import { readSettings } from '../../../src/platform/settings';

/** Every app setting is checked when it is read. */
describe('readSettings: validation', () => {
  const fails = (env: NodeJS.ProcessEnv) => {
    try {
      readSettings(env, '/tmp');
    } catch (err) {
      return { name: (err as Error).name, message: (err as Error).message };
    }
    throw new Error('readSettings accepted the settings');
  };

  it.each([
    [{ GetChangesSchedule: 'bogus' }, 'app settings: GetChangesSchedule: invalid NCRONTAB "bogus": expected 6 fields (second minute hour day month weekday), got 1'],
    [{ GetChangesSchedule: '*/0 * * * * *' }, 'app settings: GetChangesSchedule: invalid NCRONTAB "*/0 * * * * *": Constraint error, cannot repeat at every 0 time.'],
    [{ GetChangesSchedule: '0 61 * * * *' }, 'app settings: GetChangesSchedule: invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59'],
    [{ HIGHWATER_TIMEZONE: 'Mars/Olympus' }, 'app settings: HIGHWATER_TIMEZONE: unknown time zone "Mars/Olympus"'],
    [{ QUEUE_LOW: 'bad queue' }, `app settings: QUEUE_LOW: queue name "bad queue" is invalid: use 1-260 letters, digits, '.', '-', '_' or '/', starting and ending with a letter or digit`],
    [{ QUEUE_IGNORED: 'SBQHIGH' }, 'app settings: QUEUE_IGNORED: queue "SBQHIGH" is already the queue of QUEUE_HIGH: every queue setting needs a queue of its own'],
    [{ HIGHWATER_TABLES_ENDPOINT: 'https://:S3cr3t@acct.table.core.windows.net/' }, 'app settings: HIGHWATER_TABLES_ENDPOINT: a password in the URL is not allowed; put it in an app setting and reference it in secrets instead'],
    [{ HIGHWATER_TABLES_ENDPOINT: 'https://T0k3n@acct.table.core.windows.net/' }, 'app settings: HIGHWATER_TABLES_ENDPOINT: credentials in the URL are not allowed; put them in app settings and reference them in secrets instead'],
    [{ HIGHWATER_TABLES_ENDPOINT: 'https://u%3AS3cr3t@acct.table.core.windows.net/' }, 'app settings: HIGHWATER_TABLES_ENDPOINT: credentials in the URL are not allowed; put them in app settings and reference them in secrets instead'],
    [{ HIGHWATER_TABLES_ENDPOINT: 'acct.table.core.windows.net' }, 'app settings: HIGHWATER_TABLES_ENDPOINT: not a valid URL (expected https://host/…)'],
    [{ HIGHWATER_TABLES_ENDPOINT: 'ftp://acct/' }, 'app settings: HIGHWATER_TABLES_ENDPOINT: must be an http(s) URL, got the scheme "ftp"'],
    [{ HIGHWATER_RETRY_BASE_SECONDS: 'soon' }, 'app settings: HIGHWATER_RETRY_BASE_SECONDS: expected a number of seconds ≥ 0, got "soon"'],
    [{ HIGHWATER_RUN_BUDGET_SECONDS: '-5' }, 'app settings: HIGHWATER_RUN_BUDGET_SECONDS: expected a number of seconds ≥ 0, got "-5"'],
    [{ HIGHWATER_QUEUE_DEPTH_LIMIT: '2.5' }, 'app settings: HIGHWATER_QUEUE_DEPTH_LIMIT: expected a whole number of messages from 0 (no limit) to 10000000, got "2.5"'],
    [{ HIGHWATER_EXECUTE_WAIT_SECONDS: '201' }, 'app settings: HIGHWATER_EXECUTE_WAIT_SECONDS: expected whole seconds from 0 to 200, got "201"'],
    [{ HIGHWATER_AZURITE_PORT: '99999' }, 'app settings: HIGHWATER_AZURITE_PORT: expected a port number 1–65535, got "99999"'],
    [{ HIGHWATER_LOCAL_TABLES: 'lokijs' }, 'app settings: HIGHWATER_LOCAL_TABLES: expected azurite or sqlite, got "lokijs"'],
    [{ HIGHWATER_LOCAL_BUS_SYNCHRONOUS: 'OFF' }, 'app settings: HIGHWATER_LOCAL_BUS_SYNCHRONOUS: must be NORMAL or FULL, got "OFF"'],
    [{ HIGHWATER_LOCAL_PROCESSING: ' threads ' }, 'app settings: HIGHWATER_LOCAL_PROCESSING: must be worker or inline, got "threads"'],
  ])('refuses %j', (env, message) => {
    expect(fails(env)).toEqual({ name: 'ConfigError', message });
  });

  it('lists every problem, not just the first, and never shows a password', () => {
    const { message } = fails({ GetChangesSchedule: 'x', HIGHWATER_TIMEZONE: 'Nowhere', HIGHWATER_TABLES_ENDPOINT: 'https://u:hunter2@x/' });
    expect(message.split('\n')).toEqual([
      'app settings: HIGHWATER_TIMEZONE: unknown time zone "Nowhere"',
      'app settings: GetChangesSchedule: invalid NCRONTAB "x": expected 6 fields (second minute hour day month weekday), got 1',
      'app settings: HIGHWATER_TABLES_ENDPOINT: a password in the URL is not allowed; put it in an app setting and reference it in secrets instead',
    ]);
    expect(message).not.toContain('hunter2');
  });

  it('leaves connection strings to their clients (they check them when they open, without echoing them)', () => {
    expect(readSettings({ AzureWebJobsStorage: 'AccountKey=s3cr3t', SERVICEBUS_CONNECTION_STRING: 'whatever' }, '/tmp').serviceBusConnectionString).toBe('whatever');
  });

  it('takes the local settings in any case, trimmed, and keeps them as given for the code that opens them', () => {
    const s = readSettings({ HIGHWATER_LOCAL_TABLES: ' SQLite ', HIGHWATER_LOCAL_BUS_SYNCHRONOUS: 'full', HIGHWATER_LOCAL_PROCESSING: 'Worker', HIGHWATER_AZURITE_PORT: '10010' }, '/tmp');
    expect([s.localTables, s.localBusSynchronous, s.localProcessing, s.azuritePort]).toEqual(['SQLite', 'full', 'Worker', '10010']);
  });

  it('accepts the defaults and valid values', () => {
    expect(readSettings({}, '/tmp').getChangesSchedule).toBe('*/10 * * * * *');
    const s = readSettings({ GetChangesSchedule: '0 */5 * * * *', HIGHWATER_TIMEZONE: 'Europe/Berlin', HIGHWATER_TABLES_ENDPOINT: 'https://acct.table.core.windows.net/' }, '/tmp');
    expect([s.getChangesSchedule, s.timeZone, s.tablesEndpoint]).toEqual(['0 */5 * * * *', 'Europe/Berlin', 'https://acct.table.core.windows.net/']);
  });
});
