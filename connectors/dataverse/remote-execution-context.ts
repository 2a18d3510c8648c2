/**
 * Reads the `RemoteExecutionContext` Dataverse posts for a registered step: the body of a webhook
 * service endpoint's POST, and the body of a Service Bus service endpoint's message with message
 * format JSON (the same serialization). The .NET data-contract JSON has its own shapes: lists of
 * `{ key, value }` pairs for parameters, attributes and images, dates as `/Date(ms±hhmm)/`, typed
 * values (`EntityReference`, `OptionSetValue`, `Money`) as objects with a `__type`.
 */

/** One event of a table row, as Highwater needs it. */
export interface DataverseEvent {
  /** `Create`, `Update`, `Delete` (other messages are refused by the reader of the event). */
  messageName: string;
  /** Logical name of the table (`PrimaryEntityName`). */
  entityName: string;
  /** The row's id (`PrimaryEntityId`). */
  id: string;
  organizationId: string;
  /** When the operation ran (`OperationCreatedOn`). */
  operationCreatedOn: Date;
  /**
   * The first post-image's columns (plain values, see {@link plainValue}); undefined when the
   * step has no post-image or Dataverse removed it (payload over its size limit).
   */
  postImage?: Record<string, unknown>;
  /** The columns of `Target` when it is an entity (Create, Update); undefined for a reference (Delete). */
  targetAttributes?: Record<string, unknown>;
}

/** A context that cannot be read: `path` names the property (`$.PrimaryEntityId`). */
export class RemoteExecutionContextError extends Error {
  override name = 'RemoteExecutionContextError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WCF_DATE = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a context (already parsed from JSON).
 * @throws RemoteExecutionContextError naming the first property that is missing or wrong.
 */
export function readRemoteExecutionContext(body: unknown): DataverseEvent {
  if (!isObject(body)) throw new RemoteExecutionContextError('$', 'expected a RemoteExecutionContext object');
  const text = (key: string, pattern?: RegExp): string => {
    const value = body[key];
    if (typeof value !== 'string' || value === '') throw new RemoteExecutionContextError(`$.${key}`, 'missing');
    if (pattern && !pattern.test(value)) throw new RemoteExecutionContextError(`$.${key}`, `expected a GUID, got ${JSON.stringify(value.slice(0, 60))}`);
    return value;
  };
  const created = body.OperationCreatedOn;
  const operationCreatedOn = typeof created === 'string' ? parseWcfDate(created) : undefined;
  if (!operationCreatedOn) throw new RemoteExecutionContextError('$.OperationCreatedOn', 'expected a date as /Date(milliseconds)/');
  const event: DataverseEvent = {
    messageName: text('MessageName'),
    entityName: text('PrimaryEntityName'),
    id: text('PrimaryEntityId', GUID).toLowerCase(),
    organizationId: text('OrganizationId', GUID).toLowerCase(),
    operationCreatedOn,
  };
  const images = pairs(body.PostEntityImages, '$.PostEntityImages');
  const image = images.find((pair) => isObject(pair.value));
  if (image) event.postImage = attributesOf(image.value as Json, `$.PostEntityImages[${images.indexOf(image)}].value`);
  const target = pairs(body.InputParameters, '$.InputParameters').find((pair) => pair.key === 'Target');
  if (target && isObject(target.value) && Array.isArray(target.value.Attributes)) {
    event.targetAttributes = attributesOf(target.value, '$.InputParameters[Target].value');
  }
  return event;
}

/** `/Date(1506384247000)/` or `/Date(1506409448000-0700)/`: milliseconds since 1970 UTC (the offset is only the sender's zone). */
export function parseWcfDate(text: string): Date | undefined {
  const m = WCF_DATE.exec(text);
  if (!m) return undefined;
  const date = new Date(Number(m[1]));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function pairs(value: unknown, path: string): Array<{ key: string; value: unknown }> {
  // A context over Dataverse's size limit has no parameters or images at all.
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RemoteExecutionContextError(path, 'expected a list of { key, value }');
  return value.map((pair, i) => {
    if (!isObject(pair) || typeof pair.key !== 'string') throw new RemoteExecutionContextError(`${path}[${i}]`, 'expected { key, value }');
    return { key: pair.key, value: pair.value };
  });
}

/**
 * An entity's columns as the Web API names and returns them: a lookup column `parentcustomerid`
 * is also given as `_parentcustomerid_value` (what a polling job maps), choices and money as
 * their number, dates as ISO 8601 UTC.
 */
function attributesOf(entity: Json, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of pairs(entity.Attributes, `${path}.Attributes`)) {
    const plain = plainValue(value);
    out[key] = plain;
    if (isObject(value) && typeof value.__type === 'string' && value.__type.startsWith('EntityReference:')) out[`_${key}_value`] = plain;
  }
  return out;
}

/** A data-contract value as a plain JSON value. */
function plainValue(value: unknown): unknown {
  if (typeof value === 'string') {
    const date = WCF_DATE.test(value) ? parseWcfDate(value) : undefined;
    return date ? date.toISOString() : value;
  }
  if (!isObject(value)) return value;
  const type = typeof value.__type === 'string' ? value.__type : '';
  if (type.startsWith('EntityReference:')) return typeof value.Id === 'string' ? value.Id.toLowerCase() : null;
  if ('Value' in value && (type.startsWith('OptionSetValue:') || type.startsWith('Money:') || type === '')) return value.Value;
  return value;
}
