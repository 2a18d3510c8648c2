import type { ApplicationProperties } from '../../src/bus/message-bus';
import type { MessageSettler } from '../../src/process/message-settler';

/** What the broker did with one delivered message, as far as the settler's calls go. */
export type SettledOutcome =
  /** Still locked by this delivery: nothing was settled. */
  | { readonly action: 'held' }
  | { readonly action: 'completed' }
  /** Released for redelivery; `properties`: the ones the abandon set (none: `{}`). */
  | { readonly action: 'abandoned'; readonly properties: ApplicationProperties }
  | { readonly action: 'deadLettered'; readonly reason: string; readonly description?: string; readonly properties: ApplicationProperties };

/** One delivered message: its settler, and a way to see what was done with it. */
interface SettlerDelivery {
  readonly settler: MessageSettler;
  /** What identifies the delivery's lock to the adapter (a lock token, a sequence number). */
  readonly lock: string;
  /** Reads the message's fate once the settler's calls are done (call it once per delivery). */
  outcome(): Promise<SettledOutcome>;
}

type SettlerMethod = 'complete' | 'abandon' | 'deadLetter' | 'renewLock';

/** What an adapter's test hands to {@link runMessageSettlerContract}. */
export interface MessageSettlerFixture {
  /** Delivers a fresh message (application properties `{ JobName: 'crm-accounts' }`) under a lock. */
  deliver(): Promise<SettlerDelivery>;
  /**
   * The error a settler's `method` rejects with once the delivery's message is settled: the lock
   * is gone. Checked exactly, so each adapter states what its callers see.
   */
  expectLockLost(method: SettlerMethod, error: unknown, delivery: SettlerDelivery): void;
  close(): Promise<void>;
}

/**
 * The `MessageSettler` port's contract (`src/process/message-settler.ts`), run against the local
 * host's settler on the MessageBus and the Functions app's on the host's Settlement service:
 * each settlement is final, carries its properties (as the broker stores them: integers, large
 * integers, doubles, booleans, text), a renewal keeps the message held, and once a message is
 * settled every call rejects with the adapter's lock-lost error.
 */
export function runMessageSettlerContract(name: string, open: () => Promise<MessageSettlerFixture>): void {
  let fixture: MessageSettlerFixture | undefined;
  const current = (): MessageSettlerFixture => {
    if (!fixture) throw new Error(`${name}: the settler fixture is not ready (did beforeAll fail?)`);
    return fixture;
  };
  const rejection = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => new Error('expected a rejection, but the call succeeded'), (err: unknown) => err);

  /** Every method of a settled message rejects as the lock is lost. */
  const expectAllLost = async (delivery: SettlerDelivery): Promise<void> => {
    const { settler } = delivery;
    current().expectLockLost('complete', await rejection(settler.complete()), delivery);
    current().expectLockLost('abandon', await rejection(settler.abandon({ Late: true })), delivery);
    current().expectLockLost('deadLetter', await rejection(settler.deadLetter({ reason: 'Late' })), delivery);
    current().expectLockLost('renewLock', await rejection(settler.renewLock()), delivery);
  };

  describe(`MessageSettler contract: ${name}`, () => {
    beforeAll(async () => {
      fixture = await open();
    }, 60_000);
    afterAll(async () => {
      await fixture?.close();
    });

    it('a delivered message nobody settled stays held', async () => {
      const delivery = await current().deliver();
      expect(await delivery.outcome()).toEqual({ action: 'held' });
    });

    it('complete removes the message; after it every call rejects as the lock is lost', async () => {
      const delivery = await current().deliver();
      const { settler, outcome } = delivery;
      await settler.complete();
      await expectAllLost(delivery);
      expect(await outcome()).toEqual({ action: 'completed' });
    });

    it('abandon releases the message with the properties it sets, of every property type', async () => {
      const delivery = await current().deliver();
      const { settler, outcome } = delivery;
      const properties = { ErrorMessage: 'HTTP 503 – Zürich', Attempt: 3, SequenceBig: 2 ** 40, Ratio: 0.25, Transient: true };
      await settler.abandon(properties);
      await expectAllLost(delivery);
      expect(await outcome()).toEqual({ action: 'abandoned', properties });
    });

    it('abandon without properties releases the message unchanged', async () => {
      const { settler, outcome } = await current().deliver();
      await settler.abandon();
      expect(await outcome()).toEqual({ action: 'abandoned', properties: {} });
    });

    it('deadLetter parks the message with reason, description and properties', async () => {
      const delivery = await current().deliver();
      const { settler, outcome } = delivery;
      await settler.deadLetter({ reason: 'ValidationFailed', description: 'fields.name is required', propertiesToModify: { ErrorType: 'PermanentError', Attempt: 1 } });
      await expectAllLost(delivery);
      expect(await outcome()).toEqual({ action: 'deadLettered', reason: 'ValidationFailed', description: 'fields.name is required', properties: { ErrorType: 'PermanentError', Attempt: 1 } });
    });

    it('deadLetter with a reason alone parks the message without description or properties', async () => {
      const { settler, outcome } = await current().deliver();
      await settler.deadLetter({ reason: 'MaxDeliveryCountExceeded' });
      expect(await outcome()).toEqual({ action: 'deadLettered', reason: 'MaxDeliveryCountExceeded', properties: {} });
    });

    it('renewLock keeps the message held and settleable, any number of times', async () => {
      const { settler, outcome } = await current().deliver();
      await settler.renewLock();
      await settler.renewLock();
      await settler.complete();
      expect(await outcome()).toEqual({ action: 'completed' });
    });

    it('settlers of different messages settle each its own message', async () => {
      const first = await current().deliver();
      const second = await current().deliver();
      await second.settler.deadLetter({ reason: 'Manual' });
      await first.settler.complete();
      expect(await first.outcome()).toEqual({ action: 'completed' });
      expect(await second.outcome()).toEqual({ action: 'deadLettered', reason: 'Manual', properties: {} });
    });
  });
}
