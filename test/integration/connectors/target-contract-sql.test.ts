import { runTargetConnectorContract } from '../../contract/target-connector.contract';
import { sqlHarness } from '../../contract/target-connector/harnesses/sql-harness';

/**
 * The target connector contract on real databases: a SQLite file always, PostgreSQL at
 * `HIGHWATER_TEST_PG_URL`, MariaDB / MySQL at `HIGHWATER_TEST_MYSQL_URL` (each skipped with a
 * printed notice when its variable is unset).
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

if (process.env.HIGHWATER_TEST_MYSQL_URL) {
  runTargetConnectorContract('SqlTarget on MariaDB/MySQL', () => sqlHarness('mysql'));
} else {
  console.log('Target contract on MariaDB/MySQL skipped: set HIGHWATER_TEST_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/test) to run it');
  describe.skip('Target connector contract: SqlTarget on MariaDB/MySQL (needs HIGHWATER_TEST_MYSQL_URL)', () => {
    it('runs against MariaDB/MySQL', () => undefined);
  });
}
