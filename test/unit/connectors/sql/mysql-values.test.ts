import { mysqlDialect } from '../../../../connectors/sql/mysql-dialect';
import { mysqlCheckOf } from '../../../../connectors/sql/mysql-exact';
import { fractionBeyond, mysqlDateTimeText, mysqlTextToIso } from '../../../../connectors/sql/mysql-values';
import { deleteStatement, insertStatement, lockStatement, updateStatement, type MysqlBatchShape } from '../../../../connectors/sql/mysql-batch-sql';
import type { MysqlColumn } from '../../../../connectors/sql/mysql-columns';

const column = (dataType: string, columnType: string, fractionDigits = 0): MysqlColumn => ({ dataType, columnType, fractionDigits });

describe('MariaDB / MySQL date-time text', () => {
  it.each([
    ['2026-01-02 03:04:05.123456', '2026-01-02T03:04:05.123456Z'],
    ['2026-01-02 03:04:05.120000', '2026-01-02T03:04:05.12Z'],
    ['2026-01-02 03:04:05.000000', '2026-01-02T03:04:05Z'],
    ['2026-01-02 03:04:05', '2026-01-02T03:04:05Z'],
    ['0000-00-00 00:00:00', undefined],
    ['2026-01-02T03:04:05Z', undefined],
  ])('reads %s as %s', (text, iso) => {
    expect(mysqlTextToIso(text)).toBe(iso);
  });

  it.each([
    ['2026-01-02T03:04:05.1234567Z', '2026-01-02 03:04:05.123456'],
    ['2026-01-02 03:04:05.123456+02', '2026-01-02 01:04:05.123456'],
    ['2026-01-02T00:30:00-05:30', '2026-01-02 06:00:00'],
    ['2026-01-02T03:04:05+0100', '2026-01-02 02:04:05'],
    ['2026-01-02 03:04:05', '2026-01-02 03:04:05'],
    ['yesterday', undefined],
  ])('writes %s as %s (UTC, at most six fraction digits, cut)', (text, mysql) => {
    expect(mysqlDateTimeText(text)).toBe(mysql);
  });

  it('tells fraction digits a column would lose from zeros it would not', () => {
    expect(fractionBeyond('2026-01-02T03:04:05.1234Z', 3)).toBe(true);
    expect(fractionBeyond('2026-01-02T03:04:05.1230000Z', 3)).toBe(false);
    expect(fractionBeyond('2026-01-02T03:04:05Z', 0)).toBe(false);
  });

  it('compares a datetime watermark in the column\'s text form, and a text column\'s as written', () => {
    const dialect = mysqlDialect();
    expect(dialect.watermarkParameter('datetime', '2026-01-02T03:04:05.1234567Z', '2026-01-02 03:04:05.000001', 'w')).toBe('2026-01-02 03:04:05.123456');
    expect(dialect.watermarkParameter('datetime', '2026-01-02T03:04:05.1234567Z', '2026-01-02T03:04:05Z', 'w')).toBe('2026-01-02T03:04:05.1234567Z');
    expect(dialect.watermarkParameter('number', '18446744073709551615', '18446744073709551615', 'w')).toBe('18446744073709551615');
  });
});

describe('MariaDB / MySQL exactness checks', () => {
  it.each([
    [column('bigint', 'bigint(20) unsigned'), '18446744073709551615', undefined],
    [column('bigint', 'bigint(20) unsigned'), '18446744073709551616', 'beyond the range of bigint(20) unsigned'],
    [column('bigint', 'bigint(20) unsigned'), -1, 'beyond the range of bigint(20) unsigned'],
    [column('bigint', 'bigint(20)'), '-9223372036854775808', undefined],
    [column('tinyint', 'tinyint(4)'), 128, 'beyond the range of tinyint(4)'],
    [column('int', 'int(11)'), 1.5, 'not an integer, as int(11) needs'],
    [column('decimal', 'decimal(65,30)'), '1.000000000000000000000000000001', undefined],
    [column('decimal', 'decimal(65,30)'), '1.0000000000000000000000000000001', 'more than 30 fraction digits: decimal(65,30) would round it'],
    [column('decimal', 'decimal(5,2)'), '1234.5', 'more than 3 integer digits: beyond decimal(5,2)'],
    [column('datetime', 'datetime(6)', 6), '2026-01-02T03:04:05.1234567Z', 'more than 6 fraction digits of a second: datetime(6) would cut or round it'],
    [column('timestamp', 'timestamp', 0), '2026-01-02T03:04:05.000Z', undefined],
    [column('varchar', 'varchar(10)'), 'anything', undefined],
  ])('%j holds %j: %s', (col, value, problem) => {
    expect(mysqlCheckOf(col)?.(value) ?? undefined).toBe(problem);
  });
});

describe('MariaDB / MySQL batch statements', () => {
  const shape: MysqlBatchShape = {
    entity: '"orders"', keys: ['id'], columns: ['id', 'label', 'at'], returning: [],
    types: new Map([['id', column('int', 'int(11)')], ['label', column('varchar', 'varchar(20)')], ['at', column('datetime', 'datetime(6)', 6)]]),
  };
  const records = [{ id: 2, label: 'b', at: '2026-01-02T03:04:05+01:00' }, { id: 1, label: 'a', at: null }];

  it('locks each key in its own SELECT … FOR UPDATE, positions as literals, values bound', () => {
    expect(lockStatement(shape, records, 'at')).toEqual({
      sql: '(SELECT 0 AS "__hw_i", t."at" AS "__hw_v" FROM "orders" t WHERE t."id" = ? FOR UPDATE) UNION ALL (SELECT 1 AS "__hw_i", t."at" AS "__hw_v" FROM "orders" t WHERE t."id" = ? FOR UPDATE)',
      params: [2, 1],
    });
  });

  it('updates existing rows in one statement and inserts missing ones in another, date-times as UTC text', () => {
    expect(updateStatement(shape, records)).toEqual({
      sql: 'UPDATE "orders" SET "label" = CASE WHEN "id" = ? THEN ? WHEN "id" = ? THEN ? ELSE "label" END, "at" = CASE WHEN "id" = ? THEN ? WHEN "id" = ? THEN ? ELSE "at" END WHERE ("id" = ?) OR ("id" = ?)',
      params: [2, 'b', 1, 'a', 2, '2026-01-02 02:04:05', 1, null, 2, 1],
    });
    expect(insertStatement(shape, records)).toEqual({ sql: 'INSERT INTO "orders" ("id", "label", "at") VALUES (?, ?, ?), (?, ?, ?)', params: [2, 'b', '2026-01-02 02:04:05', 1, 'a', null] });
    expect(deleteStatement({ ...shape, keys: ['id', 'label'] }, records)).toEqual({
      sql: 'DELETE FROM "orders" WHERE ("id" = ? AND "label" = ?) OR ("id" = ? AND "label" = ?)',
      params: [2, 'b', 1, 'a'],
    });
  });
});
