import { appendFileSync, writeFileSync } from 'node:fs';
import { OutboxSource } from '../../../../connectors/sql/outbox-source';
import { SqlTarget } from '../../../../connectors/sql/sql-target';
import { LocalBatch } from '../../../../src/bus/local/local-batch';
import { LocalBus } from '../../../../src/bus/local/local-bus';
import type { MessageBatch, OutgoingMessage } from '../../../../src/bus/message-bus';
import { ServiceBusService } from '../../../../src/bus/service-bus-service';
import { WatermarkService } from '../../../../src/detect/watermark-service';

/**
 * Test-only wrappers installed by the host child script (never in src/): they record what the bus
 * accepted and, when asked, kill the process with SIGKILL at an exact point. They wrap prototype
 * methods of the real classes, so the real code runs unchanged up to the kill.
 */

/** Where a host child kills itself. */
type CrashPoint =
  /** After the N-th message handed to the sender during detection (some batches sent, watermark not written). */
  | 'detection'
  /** At the first watermark write after N messages were handed to the sender: every batch sent, watermark not written. */
  | 'before-watermark'
  /** After the N-th upsert reached the target, before its message is completed. */
  | 'processing'
  /** Outbox sources: at the first page marked after N messages were handed to the sender: the page is on the bus, its rows not marked. */
  | 'before-mark';

export interface CrashPlan {
  point: CrashPoint;
  after: number;
}

export const FAULT_ENV = 'HW_E2E_FAULT';
export const SEND_LOG_ENV = 'HW_E2E_SEND_LOG';
export const CRASH_MARKER_ENV = 'HW_E2E_CRASH_MARKER';

/** Kills this process at once; nothing after this line runs (the thread blocks until the signal lands). */
export function crashNow(markerFile: string | undefined, what: string): never {
  if (markerFile) writeFileSync(markerFile, what);
  process.kill(process.pid, 'SIGKILL');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  throw new Error('still alive after SIGKILL');
}

/** Appends `queue<TAB>messageId` for every message the bus accepted (after the commit). */
function recordSends(logFile: string): void {
  const sendBatch = LocalBus.prototype.sendBatch;
  LocalBus.prototype.sendBatch = async function (this: LocalBus, batch: MessageBatch) {
    await sendBatch.call(this, batch);
    if (batch instanceof LocalBatch) appendFileSync(logFile, batch.messages.map((m) => `${batch.queue}\t${m.messageId}\n`).join(''));
  };
  const send = LocalBus.prototype.send;
  LocalBus.prototype.send = async function (this: LocalBus, queue: string, messages: OutgoingMessage[]) {
    await send.call(this, queue, messages);
    appendFileSync(logFile, messages.map((m) => `${queue}\t${m.messageId ?? ''}\n`).join(''));
  };
}

function installCrash(plan: CrashPlan, marker: string | undefined): void {
  let added = 0;
  const addMessageOrSend = ServiceBusService.prototype.addMessageOrSend;
  ServiceBusService.prototype.addMessageOrSend = async function (this: ServiceBusService, ...args: Parameters<ServiceBusService['addMessageOrSend']>) {
    await addMessageOrSend.apply(this, args);
    added++;
    if (plan.point === 'detection' && added === plan.after) crashNow(marker, `detection: after message ${added} (${args[0].jobName})`);
  };
  if (plan.point === 'before-watermark') {
    const update = WatermarkService.prototype.updateWatermarkByJobName;
    WatermarkService.prototype.updateWatermarkByJobName = async function (this: WatermarkService, ...args: Parameters<WatermarkService['updateWatermarkByJobName']>) {
      if (added >= plan.after) crashNow(marker, `before-watermark: job ${args[0]} after ${added} messages sent`);
      return update.apply(this, args);
    };
  }
  if (plan.point === 'before-mark') {
    const acknowledge = OutboxSource.prototype.acknowledge;
    OutboxSource.prototype.acknowledge = async function (this: OutboxSource, ...args: Parameters<OutboxSource['acknowledge']>) {
      if (added >= plan.after) crashNow(marker, `before-mark: a page of ${args[0].messages.length} on the bus, its outbox rows not marked, after ${added} messages sent`);
      return acknowledge.apply(this, args);
    };
  }
  if (plan.point === 'processing') {
    let applied = 0;
    const applyBatch = SqlTarget.prototype.applyBatch;
    SqlTarget.prototype.applyBatch = async function (this: SqlTarget, ...args: Parameters<SqlTarget['applyBatch']>) {
      const result = await applyBatch.apply(this, args);
      const before = applied;
      applied += args[0].messages.length;
      if (before < plan.after && applied >= plan.after) {
        crashNow(marker, `processing: after applying ${applied} messages (a batch of ${args[0].messages.length}, job ${args[0].job.name}), before complete`);
      }
      return result;
    };
  }
}

/** Installs what the environment asks for: the send log and at most one crash point. */
export function installFaultHooks(env: NodeJS.ProcessEnv = process.env): void {
  const log = env[SEND_LOG_ENV];
  if (log) recordSends(log);
  const raw = env[FAULT_ENV];
  if (raw) installCrash(JSON.parse(raw) as CrashPlan, env[CRASH_MARKER_ENV]);
}
