import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { classifyError, type ErrorRule } from '../../connectors/base/error-classification';
import { safeErrorText } from '../../src/bus/message-properties';
import { encodeSettlementRequest, type SettlementRequest } from './settlement-wire';
import type { DeadLetterRequest, RenewalSupport, ServiceBusSettlementActions } from './service-bus-settler';

/** Thrown by `renewMessageLock` when the host's Service Bus extension has no `RenewMessageLock` (before 5.16). */
export class RenewalUnsupportedError extends Error {
  override readonly name = 'RenewalUnsupportedError';
}

/**
 * What the host answers, by gRPC status, in one table. The Settlement service answers
 * FAILED_PRECONDITION for a lock token it does not hold (settled, expired, or of an invocation
 * that already returned) and UNKNOWN with the SDK's exception for a broker refusal; ASP.NET Core
 * answers UNIMPLEMENTED ("Method is unimplemented.") for a method the extension's service lacks.
 * Every one is transient for the message: it is delivered again once its lock expires.
 */
const SETTLEMENT_ERRORS: readonly ErrorRule[] = [
  { code: 'FAILED_PRECONDITION', kind: 'transient', reason: 'the lock is lost (settled, expired, or its invocation returned)' },
  { code: 'UNIMPLEMENTED', kind: 'transient', reason: 'the host does not offer this call (Service Bus extension too old)' },
  { code: /^(UNAVAILABLE|DEADLINE_EXCEEDED|CANCELLED)$/, kind: 'transient', reason: 'the host did not answer' },
  { code: 'UNKNOWN', kind: 'transient', reason: 'the broker refused' },
];

/** How much of the host's answer an error keeps. */
const MAX_ANSWER_LENGTH = 300;

/** Per-call deadline: a host that hangs must not hold an invocation until the function timeout. */
const SETTLEMENT_CALL_TIMEOUT_MS = 30_000;

/**
 * The Settlement gRPC service of the Functions host, called directly (not through
 * `@azure/functions-extensions-servicebus`). One channel per process; `renewalSupport` is learnt
 * from the first `RenewMessageLock` answer and kept.
 */
export class GrpcSettlementClient implements ServiceBusSettlementActions {
  private readonly client: grpc.Client;
  private support: RenewalSupport = 'unknown';

  /** @param address `host:port` of the host's gRPC server (see {@link hostAddress}). */
  constructor(address: string, private readonly callTimeoutMs = SETTLEMENT_CALL_TIMEOUT_MS) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  get renewalSupport(): RenewalSupport {
    return this.support;
  }

  complete(lockToken: string): Promise<void> {
    return this.call('Complete', { lockToken });
  }

  abandon(lockToken: string, propertiesToModify?: Uint8Array): Promise<void> {
    return this.call('Abandon', { lockToken, propertiesToModify });
  }

  deadLetter(lockToken: string, request: DeadLetterRequest): Promise<void> {
    return this.call('Deadletter', {
      lockToken,
      propertiesToModify: request.propertiesToModify,
      deadLetterReason: request.reason,
      deadLetterErrorDescription: request.description,
    });
  }

  async renewMessageLock(lockToken: string): Promise<void> {
    if (this.support === 'unsupported') throw renewalUnsupported();
    try {
      await this.call('RenewMessageLock', { lockToken });
      this.support = 'supported';
    } catch (err) {
      if ((err as { details?: { code?: unknown } }).details?.code !== 'UNIMPLEMENTED') throw err;
      this.support = 'unsupported';
      throw renewalUnsupported();
    }
  }

  close(): void {
    this.client.close();
  }

  private call(method: string, request: SettlementRequest): Promise<void> {
    const deadline = new Date(Date.now() + this.callTimeoutMs);
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(`/Settlement/${method}`, encodeSettlementRequest, (reply: Buffer) => reply, request, { deadline }, (err) => {
        if (!err) return resolve();
        reject(
          classifyError(err, SETTLEMENT_ERRORS, {
            codeOf: (e) => grpc.status[(e as grpc.ServiceError).code],
            operation: `Service Bus settlement: ${method} of lock ${request.lockToken}`,
            // UNKNOWN carries the host's whole .NET exception, stack included.
            redact: (text) => safeErrorText(text, MAX_ANSWER_LENGTH),
          }),
        );
      });
    });
  }
}

function renewalUnsupported(): RenewalUnsupportedError {
  return new RenewalUnsupportedError('the Functions host has no RenewMessageLock (Service Bus extension before 5.16): message locks cannot be renewed');
}

/**
 * The host's gRPC address from the worker's command line: `--functions-uri` (an absolute URI),
 * else the older `--host` and `--port` the host passes too.
 * @throws Error naming the missing arguments (a process not started by the Functions host).
 */
export function hostAddress(argv: readonly string[]): string {
  const { values } = parseArgs({
    args: [...argv],
    options: { 'functions-uri': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const uri = values['functions-uri'];
  if (typeof uri === 'string' && uri !== '') {
    const parsed = new URL(uri);
    return `${parsed.hostname}:${parsed.port}`;
  }
  const { host, port } = values;
  if (typeof host === 'string' && host !== '' && typeof port === 'string' && port !== '') return `${host}:${port}`;
  throw new Error("Service Bus settlement: the worker's command line has neither --functions-uri nor --host and --port (is this process started by the Functions host?)");
}

let shared: GrpcSettlementClient | undefined;

/** The process's client of the host it was started by; created on first use. */
export function hostSettlementClient(): GrpcSettlementClient {
  shared ??= new GrpcSettlementClient(hostAddress(process.argv.slice(2)));
  return shared;
}
