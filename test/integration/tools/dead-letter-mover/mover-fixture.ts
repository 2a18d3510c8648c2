import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBus } from '../../../../src/bus/local/local-bus';
import type { QueueDeclaration } from '../../../../src/bus/local/options';
import type { BusMessage, MessageBus, SubQueue } from '../../../../src/bus/message-bus';
import { toOutgoingMessage } from '../../../../src/bus/message-properties';
import { JobActionType } from '../../../../src/model/job';
import { createQueueMessage, type QueueMessage } from '../../../../src/model/queue-message';
import type { MoverIo } from '../../../../tools/dead-letter-mover/mover';
import { runMover } from '../../../../tools/dead-letter-mover/main';
import { allQueueNames, DEFAULT_QUEUES } from '../../../../src/platform/queue-topology';

/** Local-bus scaffolding for the dead-letter mover tests: a temp data folder, seeding, running. */

const TEST_RULES = `
rules:
  - name: timeouts
    match: { errorMessage: timeout }
    action: Resubmit
  - name: bad-data
    match: { errorMessage: /^validation failed/ }
    action: Skip
  - name: keep-manual
    match: { deadLetterReason: Manual }
    action: None
`;

export interface Failure {
  errorMessage?: string;
  errorType?: string;
  /** Dead-letter reason (default `MaxDeliveryCountExceeded`). */
  reason?: string;
}

export interface Change {
  job?: string;
  sourceKey: string;
  changeTracker?: string;
}

export class MoverFixture {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'dlm-'));
  readonly dataDir = path.join(this.dir, 'data');
  readonly rulesFile = path.join(this.dir, 'rules.yaml');
  bus!: LocalBus;

  /** Opens the bus with every default queue (`options` applied to each) and writes TEST_RULES. */
  async open(options: Omit<Extract<QueueDeclaration, object>, 'name'> = {}, clock?: () => Date): Promise<LocalBus> {
    this.bus = await LocalBus.open({ dataDir: this.dataDir, queues: allQueueNames(DEFAULT_QUEUES).map((name) => ({ name, ...options })), clock: clock && { now: clock } });
    writeFileSync(this.rulesFile, TEST_RULES);
    return this.bus;
  }

  async cleanup(): Promise<void> {
    await this.bus?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  static message(change: Change): QueueMessage {
    return createQueueMessage({
      jobName: change.job ?? 'crm-contacts-to-erp',
      action: JobActionType.NewUpdate,
      sourceKey: change.sourceKey,
      targetKey: { id: change.sourceKey },
      changeTracker: change.changeTracker ?? '2026-01-01T00:00:00.0000000Z',
      fields: { name: `contact ${change.sourceKey}` },
    });
  }

  /** Sends the changes to `queue` with the failure's error properties (as the processor parks them). */
  async park(queue: string, items: Array<Change & Failure>): Promise<void> {
    await this.bus.send(
      queue,
      items.map((item) => toOutgoingMessage(MoverFixture.message(item), errorProps(item))),
    );
  }

  /** Sends the changes to `queue` and dead-letters each with its failure; returns the dead-lettered messages' ids. */
  async deadLetter(queue: string, items: Array<Change & Failure>): Promise<string[]> {
    await this.bus.send(queue, items.map((item) => toOutgoingMessage(MoverFixture.message(item))));
    const ids: string[] = [];
    for (const item of items) {
      const [received] = await this.bus.receive(queue, { maxMessages: 1 });
      await this.bus.deadLetter(received, { reason: item.reason ?? 'MaxDeliveryCountExceeded', description: item.errorMessage, propertiesToModify: errorProps(item) });
      ids.push(received.messageId);
    }
    return ids;
  }

  /** Every message of a queue (or its dead-letter subqueue), by peeking. */
  async peekAll(queue: string, subQueue?: SubQueue): Promise<BusMessage[]> {
    return this.bus.peek(queue, { subQueue, maxMessages: 10_000 });
  }

  /** Runs the mover in-process against this data folder; captures its output. */
  async run(argv: string[], io: Partial<MoverIo> = {}): Promise<{ code: number; out: string; err: string; json: () => Record<string, unknown> }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMover(argv, {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      env: { HIGHWATER_DATA_DIR: this.dataDir },
      cwd: this.dir,
      ...io,
    });
    return { code, out: out.join('\n'), err: err.join('\n'), json: () => JSON.parse(out.join('\n')) as Record<string, unknown> };
  }

  /** A bus the mover opens: the local bus on this folder (with a clock when given). */
  openBus(clock?: () => Date): MoverIo['openBus'] {
    return async (): Promise<MessageBus> => LocalBus.open({ dataDir: this.dataDir, clock: clock && { now: clock } });
  }
}

function errorProps(failure: Failure): Record<string, string> {
  const props: Record<string, string> = {};
  if (failure.errorMessage !== undefined) props.ErrorMessage = failure.errorMessage;
  if (failure.errorType !== undefined) props.ErrorType = failure.errorType;
  if (failure.errorMessage !== undefined || failure.errorType !== undefined) props.ErrorAt = '2026-01-01T00:00:00.000Z';
  return props;
}

export const text = (body: Uint8Array): string => Buffer.from(body).toString('utf8');
