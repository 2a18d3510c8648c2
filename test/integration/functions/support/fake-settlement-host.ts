import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { decodePropertiesToModify } from '../../../../functions/support/service-bus-settler';

/** The Settlement service the Functions host offers out-of-process workers (gRPC). */
const PROTO = path.join(__dirname, 'settlement.proto');

interface SettlementRequest {
  locktoken: string;
  propertiesToModify?: Buffer;
  deadletterReason?: { value: string } | null;
  deadletterErrorDescription?: { value: string } | null;
}

export interface HostSettlement {
  action: 'complete' | 'abandon' | 'deadletter' | 'defer' | 'renewMessageLock';
  lockToken: string;
  properties?: Record<string, unknown>;
  reason?: string;
  description?: string;
}

/** A lock token the stand-in answers as the host does when the broker refuses: UNKNOWN with the SDK's exception, stack and all. */
export const BROKER_REFUSES = '00000000-0000-4000-8000-00000000dead';

export interface FakeSettlementHostOptions {
  /**
   * `unimplemented`: a host whose Service Bus extension predates RenewMessageLock; its ASP.NET
   * Core gRPC server answers a method the service lacks with UNIMPLEMENTED, "Method is
   * unimplemented." (Grpc.AspNetCore's unimplemented-method endpoint). Default `supported`.
   */
  renewal?: 'supported' | 'unimplemented';
}

/**
 * A stand-in for the host's Settlement gRPC service, on the contract's proto: records what the
 * worker asked for (properties decoded from their AMQP map) and refuses, as the host does
 * (FAILED_PRECONDITION, "LockToken … not found."), to settle or renew a message that was
 * already settled.
 */
export async function startFakeSettlementHost(options: FakeSettlementHostOptions = {}) {
  const settled: HostSettlement[] = [];
  const refused: string[] = [];
  const calls: string[] = [];
  const done = new Set<string>();
  const definition = protoLoader.loadSync(PROTO, { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [path.dirname(PROTO)] });
  const proto = grpc.loadPackageDefinition(definition) as unknown as { Settlement: { service: grpc.ServiceDefinition } };

  const handler =
    (action: HostSettlement['action']): grpc.handleUnaryCall<SettlementRequest, Record<string, never>> =>
    (call, callback) => {
      const request = call.request;
      calls.push(`${action} ${request.locktoken}`);
      if (action === 'renewMessageLock' && options.renewal === 'unimplemented') {
        return callback({ code: grpc.status.UNIMPLEMENTED, details: 'Method is unimplemented.' });
      }
      if (request.locktoken === BROKER_REFUSES) {
        return callback({ code: grpc.status.UNKNOWN, details: `Azure.Messaging.ServiceBus.ServiceBusException: The lock supplied is invalid. (MessageLockLost)\n${'   at Azure.Messaging.ServiceBus.Amqp.AmqpReceiver.CompleteInternalAsync()\n'.repeat(40)}` });
      }
      if (done.has(request.locktoken)) {
        refused.push(`${action} ${request.locktoken}`);
        return callback({ code: grpc.status.FAILED_PRECONDITION, details: `LockToken ${request.locktoken} not found.` });
      }
      const record: HostSettlement = { action, lockToken: request.locktoken };
      if (request.propertiesToModify && request.propertiesToModify.length > 0) record.properties = decodePropertiesToModify(request.propertiesToModify);
      if (request.deadletterReason) record.reason = request.deadletterReason.value;
      if (request.deadletterErrorDescription) record.description = request.deadletterErrorDescription.value;
      if (action !== 'renewMessageLock') done.add(request.locktoken);
      settled.push(record);
      callback(null, {});
    };

  const server = new grpc.Server();
  server.addService(proto.Settlement.service, {
    complete: handler('complete'),
    abandon: handler('abandon'),
    deadletter: handler('deadletter'),
    defer: handler('defer'),
    renewMessageLock: handler('renewMessageLock'),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  return {
    port,
    settled,
    refused,
    calls,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
