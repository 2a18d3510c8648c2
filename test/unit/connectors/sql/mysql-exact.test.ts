import { mysqlCheckOf } from '../../../../connectors/sql/mysql-exact';
import type { MysqlColumn } from '../../../../connectors/sql/mysql-columns';

const column = (dataType: string, columnType = dataType): MysqlColumn => ({ dataType, columnType, fractionDigits: 0 });
const doc = (text: string) => ({ $jsonText: text });

describe('a JSON document beyond a double on MariaDB / MySQL', () => {
  it('goes into text columns (MariaDB\'s JSON is LONGTEXT) as it is', () => {
    for (const type of ['longtext', 'text', 'varchar', 'mediumtext']) expect(mysqlCheckOf(column(type))).toBeUndefined();
  });

  it('goes into MySQL\'s JSON type only while every number is a 64-bit integer there (MySQL stores other numbers as doubles)', () => {
    const check = mysqlCheckOf(column('json'));
    expect(check?.(doc('{"id": 12345678901234567890, "small": -9223372036854775808}'))).toBeUndefined();
    expect(check?.(doc('{"price": 0.1000000000000000055511151231257827}'))).toBe("MySQL's JSON type would store 0.1000000000000000055511151231257827 as a double: use a text column (MariaDB's JSON is one)");
    expect(check?.(doc('[18446744073709551616]'))).toMatch(/would store 18446744073709551616 as a double/);
    expect(check?.({ a: 1 })).toBeUndefined(); // an ordinary document
  });

  it('fails in any other column, which names its type, before the value checks of that type', () => {
    const check = mysqlCheckOf(column('int', 'int(11)'));
    expect(check?.(doc('[12345678901234567890]'))).toBe('a JSON document with numbers beyond a double is written exactly only into JSON or text columns, not int(11)');
    expect(check?.(1.5)).toBe('not an integer, as int(11) needs');
    expect(mysqlCheckOf(column('blob'))?.(doc('1e400'))).toMatch(/not blob$/);
  });
});
