import { runTargetConnectorContract } from '../../contract/target-connector.contract';
import { sqlHarness } from '../../contract/target-connector/harnesses/sql-harness';

/**
 * The target connector contract on real databases: a SQLite file always, PostgreSQL at
 * `HIGHWATER_TEST_PG_URL` (skipped with a printed notice when it is unset).
 */
runTargetConnectorContract('SqlTarget on SQLite', () => sqlHarness('sqlite'));

if (process.env.HIGHWATER_TEST_PG_URL) {
  runTargetConnectorContract('SqlTarget on PostgreSQL', () => sqlHarness('postgres'));
} else {
  console.log('Target contract on PostgreSQL skipped: set HIGHWATER_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it');
  describe.skip('Target connector contract: SqlTarget on PostgreSQL (needs HIGHWATER_TEST_PG_URL)', () => {
    it('runs against PostgreSQL', () => undefined);
  });
}
