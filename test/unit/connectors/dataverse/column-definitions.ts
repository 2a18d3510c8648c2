import type { RecordedExchange } from '../odata/replay-fetch';
import { API } from './dataverse-test-kit';

/**
 * Column definitions as the Web API answers them (the shapes of Microsoft Learn's "Query table
 * definitions using the Web API": `@odata.context`, `MetadataId` always returned, each attribute
 * with its derived `@odata.type`, `AttributeTypeName` as `{ "Value": "…Type" }`).
 */
type Attribute = [logicalName: string, type: string, typeName: string];

const PRODUCT_ATTRIBUTES: Attribute[] = [
  ['productnumber', 'String', 'StringType'],
  ['name', 'String', 'StringType'],
  ['description', 'Memo', 'MemoType'],
  ['new_quantity', 'BigInt', 'BigIntType'],
  ['new_count', 'Integer', 'IntegerType'],
  ['new_rate', 'Decimal', 'DecimalType'],
  ['price', 'Money', 'MoneyType'],
  ['new_listprice', 'Money', 'MoneyType'],
  ['new_weight', 'Double', 'DoubleType'],
  ['entityimage', 'Virtual', 'ImageType'],
  ['new_document', 'Virtual', 'FileType'],
];

const METADATA_CLASS: Record<string, string> = {
  String: 'StringAttributeMetadata', Memo: 'MemoAttributeMetadata', BigInt: 'BigIntAttributeMetadata', Integer: 'IntegerAttributeMetadata',
  Decimal: 'DecimalAttributeMetadata', Money: 'MoneyAttributeMetadata', Double: 'DoubleAttributeMetadata',
};
const TYPE_CLASS: Record<string, string> = { ImageType: 'ImageAttributeMetadata', FileType: 'FileAttributeMetadata' };
const id = (n: number) => `${n.toString(16).padStart(8, '0')}-2241-db11-898a-0007e9e17ebd`;

/** `GET EntityDefinitions?$filter=EntitySetName eq '<set>'&$select=LogicalName&$expand=Attributes(…)`, answered with `attributes` (none: no table). */
export function columnDefinitions(set = 'products', attributes: Attribute[] | undefined = PRODUCT_ATTRIBUTES): RecordedExchange {
  const table = attributes.length === 0 ? [] : [{
    LogicalName: set.replace(/s$/, ''),
    MetadataId: id(1),
    Attributes: attributes.map(([logicalName, type, typeName], i) => ({
      '@odata.type': `#Microsoft.Dynamics.CRM.${TYPE_CLASS[typeName] ?? METADATA_CLASS[type]}`,
      LogicalName: logicalName,
      AttributeType: type,
      AttributeTypeName: { Value: typeName },
      MetadataId: id(100 + i),
    })),
  }];
  return {
    note: `the column definitions of ${set}`,
    request: { method: 'GET', url: `${API}EntityDefinitions?$filter=EntitySetName eq '${set}'&$select=LogicalName&$expand=Attributes($select=LogicalName,AttributeType,AttributeTypeName)` },
    response: { status: 200, body: { '@odata.context': `${API}$metadata#EntityDefinitions(LogicalName,Attributes(LogicalName,AttributeType,AttributeTypeName))`, value: table } },
  };
}

function derived(table: string, cast: string, select: string, rows: Array<Record<string, unknown>>): RecordedExchange {
  return {
    note: `the ${cast} columns of ${table}`,
    request: { method: 'GET', url: `${API}EntityDefinitions(LogicalName='${table}')/Attributes/Microsoft.Dynamics.CRM.${cast}?$select=${select}` },
    response: {
      status: 200,
      body: { '@odata.context': `${API}$metadata#EntityDefinitions('${id(1)}')/Attributes/Microsoft.Dynamics.CRM.${cast}(${select})`, value: rows.map((r, i) => ({ ...r, MetadataId: id(200 + i) })) },
    },
  };
}

/** The Decimal columns' `Precision` (`new_rate`: 10, Dataverse's most). */
export const decimalPrecisions = (table = 'product') => derived(table, 'DecimalAttributeMetadata', 'LogicalName,Precision', [{ LogicalName: 'new_rate', Precision: 10 }]);

/** The Double columns' `Precision` (`new_weight`: 5, Dataverse's most). */
export const doublePrecisions = (table = 'product') => derived(table, 'DoubleAttributeMetadata', 'LogicalName,Precision', [{ LogicalName: 'new_weight', Precision: 5 }]);

/** The Money columns' `Precision` and `PrecisionSource` (0: the column's own; 2: the currency's). */
export const moneyPrecisions = (table = 'product') => derived(table, 'MoneyAttributeMetadata', 'LogicalName,Precision,PrecisionSource', [
  { LogicalName: 'price', Precision: 2, PrecisionSource: 0 },
  { LogicalName: 'new_listprice', Precision: 2, PrecisionSource: 2 },
]);



/** Some columns of `account`, as its definitions name them. */
const ACCOUNT_ATTRIBUTES: Attribute[] = [
  ['accountid', 'Uniqueidentifier', 'UniqueidentifierType'],
  ['accountnumber', 'String', 'StringType'],
  ['name', 'String', 'StringType'],
  ['numberofemployees', 'Integer', 'IntegerType'],
  ['statecode', 'State', 'StateType'],
  ['modifiedon', 'DateTime', 'DateTimeType'],
  ['entityimage', 'Virtual', 'ImageType'],
];

/** The definitions a Dataverse source reads (once per connection) before it reads `accounts`. */
export const accountDefinitions = (): RecordedExchange => columnDefinitions('accounts', ACCOUNT_ATTRIBUTES);
