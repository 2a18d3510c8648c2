import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GrpcSettlementClient } from '../../../functions/support/settlement-client';
import { serviceBusSettler } from '../../../functions/support/service-bus-settler';
import { LocalBus } from '../../../src/bus/local/local-bus';
import type { ApplicationProperties, ReceivedMessage } from '../../../src/bus/message-bus';
import { busSettler } from '../../../src/process/bus-settler';
import { runMessageSettlerContract, type SettledOutcome } from '../../contract/message-settler.contract';
import { FakeClock } from '../../support/fake-clock';
import { startFakeSettlementHost } from '../functions/support/fake-settlement-host';

const QUEUE = 'settler-contract';
const SENT = { JobName: 'crm-accounts' };

/** The properties a settlement set: the message's own (as sent) are kept by the broker, and left out here. */
function setBySettlement(properties: ApplicationProperties): ApplicationProperties {
  const { JobName, ...rest } = properties;
  if (JobName !== SENT.JobName) throw new Error(`the message lost its own JobName property: ${JSON.stringify(properties)}`);
  return rest;
}

/** The local host's settler: the MessageBus port on a local bus (SQLite file, fake clock so no lock expires). */
runMessageSettlerContract('busSettler on the local bus', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-settler-contract-'));
  const bus = await LocalBus.open({ dataDir, clock: new FakeClock('2026-03-01T00:00:00Z'), pollIntervalMs: 20 });
  await bus.createQueue(QUEUE);
  const outcomeOf = async (message: ReceivedMessage): Promise<SettledOutcome> => {
    const [dead] = (await bus.peek(QUEUE, { subQueue: 'deadLetter' })).filter((m) => m.messageId === message.messageId);
    if (dead) {
      return { action: 'deadLettered', reason: dead.deadLetterReason ?? '', description: dead.deadLetterErrorDescription, properties: setBySettlement(dead.applicationProperties) };
    }
    const [waiting] = (await bus.peek(QUEUE)).filter((m) => m.messageId === message.messageId);
    if (!waiting) return { action: 'completed' };
    // Receivable again (with one more delivery) only once released; a held message is not.
    const again = (await bus.receive(QUEUE, { maxMessages: 100 })).find((m) => m.messageId === message.messageId);
    if (!again) return { action: 'held' };
    expect(again.deliveryCount).toBe(message.deliveryCount + 1);
    await bus.complete(again);
    return { action: 'abandoned', properties: setBySettlement(again.applicationProperties) };
  };
  return {
    deliver: async () => {
      const messageId = randomUUID();
      await bus.send(QUEUE, [{ body: '{}', messageId, applicationProperties: SENT }]);
      const message = (await bus.receive(QUEUE, { maxMessages: 100 })).find((m) => m.messageId === messageId);
      if (!message) throw new Error(`message ${messageId} was not received`);
      return { settler: busSettler(bus, message), lock: message.sequenceNumber, outcome: () => outcomeOf(message) };
    },
    expectLockLost: (_method, error, delivery) => {
      expect(error).toMatchObject({ name: 'BusError', code: 'LockLost', message: `The lock on message ${delivery.lock} of queue "${QUEUE}" is lost (expired, settled, or superseded by a later delivery)` });
    },
    close: async () => {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

const GRPC_METHOD = { complete: 'Complete', abandon: 'Abandon', deadLetter: 'Deadletter', renewLock: 'RenewMessageLock' } as const;

/** The Functions app's settler: the host's Settlement gRPC service (a stand-in on its proto), by lock token. */
runMessageSettlerContract('serviceBusSettler on the Functions host Settlement service', async () => {
  const host = await startFakeSettlementHost();
  const client = new GrpcSettlementClient(`127.0.0.1:${host.port}`, 5_000);
  const outcomeOf = (lockToken: string): SettledOutcome => {
    const final = host.settled.filter((s) => s.lockToken === lockToken && s.action !== 'renewMessageLock');
    if (final.length > 1) throw new Error(`lock ${lockToken} was settled ${final.length} times`);
    const [settled] = final;
    if (!settled) return { action: 'held' };
    const properties = (settled.properties ?? {}) as ApplicationProperties;
    if (settled.action === 'complete') return { action: 'completed' };
    if (settled.action === 'abandon') return { action: 'abandoned', properties };
    if (settled.action === 'deadletter') return { action: 'deadLettered', reason: settled.reason ?? '', description: settled.description, properties };
    throw new Error(`lock ${lockToken}: unexpected settlement ${settled.action}`);
  };
  return {
    deliver: async () => {
      const lockToken = randomUUID();
      return { settler: serviceBusSettler(client, lockToken), lock: lockToken, outcome: async () => outcomeOf(lockToken) };
    },
    expectLockLost: (method, error, { lock }) => {
      expect(error).toMatchObject({
        name: 'TransientError',
        message: `Service Bus settlement: ${GRPC_METHOD[method]} of lock ${lock}: the lock is lost (settled, expired, or its invocation returned) (FAILED_PRECONDITION): 9 FAILED_PRECONDITION: LockToken ${lock} not found.`,
      });
    },
    close: async () => {
      client.close();
      await host.close();
    },
  };
});
