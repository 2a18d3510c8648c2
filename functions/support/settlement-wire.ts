/**
 * The protobuf bytes of the requests of the Functions host's Settlement service (gRPC, offered
 * by the Service Bus extension to out-of-process workers; `Grpc/Proto/settlement.proto` of
 * Microsoft.Azure.WebJobs.Extensions.ServiceBus). The message requests share one layout:
 *
 * | field | number | type | in |
 * |---|---:|---|---|
 * | `locktoken` | 1 | string | every request |
 * | `propertiesToModify` | 2 | bytes (an AMQP map) | Abandon, Deadletter, Defer |
 * | `deadletterReason` | 3 | google.protobuf.StringValue | Deadletter |
 * | `deadletterErrorDescription` | 4 | google.protobuf.StringValue | Deadletter |
 *
 * Written by hand (a few length-delimited fields) rather than from the .proto at run time: no
 * schema file to ship next to `dist/`, no proto loader in the Functions app. The replies are all
 * `google.protobuf.Empty` and are not read.
 */
export interface SettlementRequest {
  lockToken: string;
  /** Left out when empty, as proto3 does for a default value. */
  propertiesToModify?: Uint8Array;
  /** Sent as a `StringValue` wrapper whenever given, even empty (the host then sees "", not null). */
  deadLetterReason?: string;
  deadLetterErrorDescription?: string;
}

/** Wire type of strings, bytes and embedded messages. */
const LENGTH_DELIMITED = 2;

/** The request's protobuf encoding. */
export function encodeSettlementRequest(request: SettlementRequest): Buffer {
  const parts: Buffer[] = [];
  if (request.lockToken !== '') parts.push(field(1, Buffer.from(request.lockToken, 'utf8')));
  if (request.propertiesToModify && request.propertiesToModify.byteLength > 0) parts.push(field(2, Buffer.from(request.propertiesToModify)));
  if (request.deadLetterReason !== undefined) parts.push(field(3, stringValue(request.deadLetterReason)));
  if (request.deadLetterErrorDescription !== undefined) parts.push(field(4, stringValue(request.deadLetterErrorDescription)));
  return Buffer.concat(parts);
}

/** `google.protobuf.StringValue`: one string field, number 1 (absent when empty). */
function stringValue(value: string): Buffer {
  return value === '' ? Buffer.alloc(0) : field(1, Buffer.from(value, 'utf8'));
}

function field(number: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((number << 3) | LENGTH_DELIMITED), varint(payload.length), payload]);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
