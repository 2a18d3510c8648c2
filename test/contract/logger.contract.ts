import { withContext, type Logger } from '../../src/telemetry/logger';

/** One line as an adapter wrote it, read back: its level, its message and its context. */
export interface LoggedEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  /** Context values as the adapter keeps them (text, or parsed JSON); a key it renamed under its own. */
  context: Record<string, unknown>;
}

/** What an adapter's test hands to {@link runLoggerContract}: a fresh logger and what it wrote. */
export interface LoggerFixture {
  log: Logger;
  entries(): LoggedEntry[];
  close?(): void;
}

/** A context value as text, however the adapter keeps it (Application Insights keeps only strings). */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The `Logger` port's contract (`src/telemetry/logger.ts`), run against each adapter: one entry
 * per call at its level, the context carried, `withContext` merging under the per-call context,
 * no way for a message or a context key to forge an entry or its level, and secrets scrubbed from
 * messages and context before anything is written.
 */
export function runLoggerContract(name: string, open: () => LoggerFixture): void {
  describe(`Logger contract: ${name}`, () => {
    let fixture: LoggerFixture;
    beforeEach(() => {
      fixture = open();
    });
    afterEach(() => fixture.close?.());
    const texts = (entry: LoggedEntry): Record<string, string> => Object.fromEntries(Object.entries(entry.context).map(([k, v]) => [k, asText(v)]));

    it('writes one entry per call, at its level, in order, with the message as given', () => {
      fixture.log.info('detection started for crm-accounts');
      fixture.log.warn('row C-1 skipped: name is empty');
      fixture.log.error('target erp unreachable – Zürich 東京');
      expect(fixture.entries()).toEqual([
        { level: 'info', message: 'detection started for crm-accounts', context: {} },
        { level: 'warn', message: 'row C-1 skipped: name is empty', context: {} },
        { level: 'error', message: 'target erp unreachable – Zürich 東京', context: {} },
      ]);
    });

    it('carries the context: text, numbers, booleans and objects', () => {
      fixture.log.info('page read', { job: 'crm-accounts', page: 3, resumed: false, sentByQueue: { high: 2 } });
      const [entry] = fixture.entries();
      expect(texts(entry)).toEqual({ job: 'crm-accounts', page: '3', resumed: 'false', sentByQueue: '{"high":2}' });
    });

    it('withContext adds its context to every line; the per-call context wins', () => {
      const log = withContext(fixture.log, { correlationId: 'c-1', job: 'crm-accounts' });
      log.warn('retrying', { job: 'erp-orders', attempt: 2 });
      log.error('gave up');
      expect(fixture.entries().map((e) => ({ level: e.level, message: e.message, context: texts(e) }))).toEqual([
        { level: 'warn', message: 'retrying', context: { correlationId: 'c-1', job: 'erp-orders', attempt: '2' } },
        { level: 'error', message: 'gave up', context: { correlationId: 'c-1', job: 'crm-accounts' } },
      ]);
    });

    it('a message with line breaks or a context key named like a field forges no entry and no level', () => {
      fixture.log.info('bad name "x\n[error] host compromised"', { level: 'error', message: 'forged' });
      const entries = fixture.entries();
      expect(entries).toHaveLength(1);
      expect(entries[0].level).toBe('info');
      expect(entries[0].message).toContain('bad name "x');
      expect(entries[0].message).not.toBe('forged');
      expect(Object.values(texts(entries[0]))).toEqual(expect.arrayContaining(['error', 'forged']));
    });

    it('scrubs secrets from messages: keys in connection strings, bearer tokens, URL passwords', () => {
      fixture.log.error('storage unreachable: DefaultEndpointsProtocol=https;AccountName=hw;AccountKey=c2VjcmV0S2V5;EndpointSuffix=core.windows.net');
      fixture.log.warn('401 from https://api.example.test with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln');
      fixture.log.info('connecting to postgres://sync:hunter2@db.example.test:5432/erp');
      expect(fixture.entries().map((e) => e.message)).toEqual([
        'storage unreachable: DefaultEndpointsProtocol=https;AccountName=hw;AccountKey=***;EndpointSuffix=core.windows.net',
        '401 from https://api.example.test with Authorization: Bearer ***',
        'connecting to postgres://***@db.example.test:5432/erp',
      ]);
    });

    it('scrubs secrets from the context: secret-named properties whatever their value, secret parts of texts, nested ones', () => {
      fixture.log.warn('connection check', {
        connection: 'erp',
        clientSecret: 'p@ss-w0rd',
        error: 'refused: Password=hunter2;Server=db',
        settings: { tenantId: 't-1', apiKey: 'k-123', urls: ['https://x.test/?sig=abc123&sv=1'] },
      });
      const [entry] = fixture.entries();
      const all = JSON.stringify(entry);
      for (const secret of ['p@ss-w0rd', 'hunter2', 'k-123', 'abc123']) expect(all).not.toContain(secret);
      expect(texts(entry)).toEqual({
        connection: 'erp',
        clientSecret: '***',
        error: 'refused: Password=***;Server=db',
        settings: '{"tenantId":"t-1","apiKey":"***","urls":["https://x.test/?sig=***&sv=1"]}',
      });
    });

    it('leaves what only looks like a secret name alone: settings naming where a secret is, plain keys', () => {
      fixture.log.info('resolved', { passwordSetting: 'ERP_PASSWORD', tokenUrl: 'https://login.example.test/token', sourceKey: 'C-1' });
      expect(texts(fixture.entries()[0])).toEqual({ passwordSetting: 'ERP_PASSWORD', tokenUrl: 'https://login.example.test/token', sourceKey: 'C-1' });
    });
  });
}
