import { runSourceConnectorContract } from '../../contract/source-connector.contract';
import { sqlSourceHarness } from '../../contract/source-connector/harnesses/sql-harness';

/**
 * The source connector contract on real databases: a SQLite file always, PostgreSQL at
 * `HIGHWATER_TEST_PG_URL`, MariaDB / MySQL at `HIGHWATER_TEST_MYSQL_URL` (each skipped with a
 * printed notice when its variable is unset).
 */
const unsupported = {
  // The port: only connectors that can tell emit them; a watermark column cannot.
  timeStamps: 'a watermark column cannot tell a timestamp-only change from a business change',
};

runSourceConnectorContract('SqlSource on SQLite', () => sqlSourceHarness('sqlite'), { unsupported });

if (process.env.HIGHWATER_TEST_PG_URL) {
  runSourceConnectorContract('SqlSource on PostgreSQL', () => sqlSourceHarness('postgres'), { unsupported });
} else {
  console.log('Source contract on PostgreSQL skipped: set HIGHWATER_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it');
  describe.skip('Source connector contract: SqlSource on PostgreSQL (needs HIGHWATER_TEST_PG_URL)', () => {
    it('runs against PostgreSQL', () => undefined);
  });
}

if (process.env.HIGHWATER_TEST_MYSQL_URL) {
  runSourceConnectorContract('SqlSource on MariaDB/MySQL', () => sqlSourceHarness('mysql'), { unsupported });
} else {
  console.log('Source contract on MariaDB/MySQL skipped: set HIGHWATER_TEST_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/test) to run it');
  describe.skip('Source connector contract: SqlSource on MariaDB/MySQL (needs HIGHWATER_TEST_MYSQL_URL)', () => {
    it('runs against MariaDB/MySQL', () => undefined);
  });
}
