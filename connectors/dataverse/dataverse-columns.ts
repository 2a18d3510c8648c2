import { ConfigError } from '../../src/platform/errors';
import type { OdataHttpClient } from '../odata/odata-http';
import { quoteString, queryString } from '../odata/odata-literals';
import { rowsOf } from '../odata/source-rows';

/**
 * The column types of one Dataverse table, read from its attribute definitions rather than from
 * `$metadata` (which describes every table of the environment and runs to megabytes):
 *
 * 1. `EntityDefinitions?$filter=EntitySetName eq '<set>'&$select=LogicalName&$expand=Attributes($select=LogicalName,AttributeType,AttributeTypeName)`
 * 2. only when the table has such columns, their precision:
 *    `EntityDefinitions(LogicalName='<table>')/Attributes/Microsoft.Dynamics.CRM.DecimalAttributeMetadata?$select=LogicalName,Precision`,
 *    the same for `DoubleAttributeMetadata`, and `…/MoneyAttributeMetadata?$select=LogicalName,Precision,PrecisionSource`.
 *
 * Read once per table and HTTP client (one per connection side) and kept while the client lives.
 */
export interface DataverseColumn {
  /** `AttributeType` (`BigInt`, `Decimal`, `Money`, `Double`, `Integer`, `String`, `Virtual`, …). */
  type: string;
  /** `AttributeTypeName.Value` (`ImageType`, `FileType`, `MultiSelectPicklistType`, …), when answered. */
  typeName?: string;
  /** Most fraction digits the column keeps (Decimal, Double: its `Precision`; Money: see {@link moneyScale}). */
  scale?: number;
}

/** Column logical name → its type. */
export type DataverseColumns = ReadonlyMap<string, DataverseColumn>;

/** Money keeps at most 4 fraction digits; a column whose precision follows the organization or currency (`PrecisionSource` 1 or 2) is checked against that most. */
const MONEY_MAX_SCALE = 4;

const TABLES = new WeakMap<OdataHttpClient, Map<string, Promise<DataverseColumns>>>();

/**
 * The columns of the table written at entity set `set`, read once per client (a failed read is not kept).
 * @throws ConfigError when no table has that entity set name; the client's classified error when the definitions cannot be read.
 */
export function dataverseColumns(http: OdataHttpClient, set: string): Promise<DataverseColumns> {
  let tables = TABLES.get(http);
  if (!tables) TABLES.set(http, (tables = new Map()));
  let columns = tables.get(set);
  if (!columns) {
    const kept = tables;
    columns = readColumns(http, set);
    kept.set(set, columns);
    columns.catch(() => kept.delete(set));
  }
  return columns;
}

async function readColumns(http: OdataHttpClient, set: string): Promise<DataverseColumns> {
  const url = `EntityDefinitions${queryString([
    ['$filter', `EntitySetName eq ${quoteString(set)}`],
    ['$select', 'LogicalName'],
    ['$expand', 'Attributes($select=LogicalName,AttributeType,AttributeTypeName)'],
  ])}`;
  const what = `read the column definitions of ${set}`;
  const tables = rowsOf(await http.request({ method: 'GET', url, operation: what, retryThrottled: true }), what);
  const table = tables[0];
  if (!table || typeof table.LogicalName !== 'string') throw new ConfigError(`${http.label}: no table has the entity set name "${set}"`);
  const columns = new Map<string, DataverseColumn>();
  for (const attribute of Array.isArray(table.Attributes) ? (table.Attributes as Array<Record<string, unknown>>) : []) {
    if (typeof attribute.LogicalName !== 'string' || typeof attribute.AttributeType !== 'string') continue;
    const typeName = (attribute.AttributeTypeName as { Value?: unknown } | undefined)?.Value;
    columns.set(attribute.LogicalName, { type: attribute.AttributeType, ...(typeof typeName === 'string' ? { typeName } : {}) });
  }
  const has = (type: string) => [...columns.values()].some((c) => c.type === type);
  const derived = (cast: string, select: string) =>
    `EntityDefinitions(LogicalName=${quoteString(table.LogicalName as string)})/Attributes/Microsoft.Dynamics.CRM.${cast}${queryString([['$select', select]])}`;
  for (const [type, cast] of [['Decimal', 'DecimalAttributeMetadata'], ['Double', 'DoubleAttributeMetadata']]) {
    if (!has(type)) continue;
    for (const row of rowsOf(await http.request({ method: 'GET', url: derived(cast, 'LogicalName,Precision'), operation: what, retryThrottled: true }), what)) {
      const column = columns.get(String(row.LogicalName));
      if (column && typeof row.Precision === 'number') column.scale = row.Precision;
    }
  }
  if (has('Money')) {
    for (const row of rowsOf(await http.request({ method: 'GET', url: derived('MoneyAttributeMetadata', 'LogicalName,Precision,PrecisionSource'), operation: what, retryThrottled: true }), what)) {
      const column = columns.get(String(row.LogicalName));
      if (column) column.scale = moneyScale(row.Precision, row.PrecisionSource);
    }
  }
  return columns;
}

/** A Money column's fraction digits: its own `Precision` when `PrecisionSource` is 0, else the most Money keeps. */
function moneyScale(precision: unknown, source: unknown): number {
  return source === 0 && typeof precision === 'number' ? precision : MONEY_MAX_SCALE;
}

const READ_TYPES: Record<string, string> = { BigInt: 'Edm.Int64', Integer: 'Edm.Int32', Uniqueidentifier: 'Edm.Guid', String: 'Edm.String', Memo: 'Edm.String' };

/**
 * The columns as OData types for reading (`readTypedRow`): `BigInt` → `Edm.Int64`, `Integer` →
 * `Edm.Int32`, an image column → `Edm.Binary` (its base64 text read as bytes); others untyped.
 * Ids and text are typed too (`Edm.Guid`, `Edm.String`), for the literals of reads by key: text
 * shaped like a GUID stays quoted, and a key that is no GUID is known absent without asking.
 */
export function readTypes(columns: DataverseColumns): ReadonlyMap<string, string> {
  const types = new Map<string, string>();
  for (const [name, column] of columns) {
    const type = column.typeName === 'ImageType' ? 'Edm.Binary' : READ_TYPES[column.type];
    if (type) types.set(name, type);
  }
  return types;
}
