import { runSourceConnectorContract } from '../../contract/source-connector.contract';
import { outboxSourceHarness } from '../../contract/source-connector/harnesses/outbox-harness';

/**
 * The source connector contract on outbox tables: a SQLite file always, PostgreSQL at
 * `HIGHWATER_TEST_PG_URL` (skipped with a printed notice when it is unset). What an outbox does
 * not do is declared, with the reason.
 */
const unsupported = {
  watermark: 'an outbox hands out rows: each is read once, marked when its page is acknowledged or freed after its lease; the watermark bounds nothing',
  lookback: 'there is no watermark to reach behind',
  filter: 'the application decides what it writes to the outbox (a job filter is refused)',
  timeStamps: 'every outbox row is a change',
  readByKeys: 'an outbox holds changes, not records: there is no current record to read by key',
  exactValues: 'the payload is JSON the application writes: its encoding of bytes and instants is the application\'s (numbers beyond a double stay exact: outbox-rows unit test)',
};

runSourceConnectorContract('OutboxSource on SQLite', () => outboxSourceHarness('sqlite'), { unsupported });

if (process.env.HIGHWATER_TEST_PG_URL) {
  runSourceConnectorContract('OutboxSource on PostgreSQL', () => outboxSourceHarness('postgres'), { unsupported });
} else {
  console.log('Outbox source contract on PostgreSQL skipped: set HIGHWATER_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it');
  describe.skip('Source connector contract: OutboxSource on PostgreSQL (needs HIGHWATER_TEST_PG_URL)', () => {
    it('runs against PostgreSQL', () => undefined);
  });
}
