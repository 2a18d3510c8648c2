import type { MessageBus } from '../../src/bus/message-bus';
import { completeManyCases } from './message-bus/complete-many.cases';
import { sleep, type ContractContext, type ContractQueueOptions, type MessageBusFixture } from './message-bus/context';
import { sendReceiveCases } from './message-bus/send-receive.cases';
import { sendingCases } from './message-bus/sending.cases';
import { settlementCases } from './message-bus/settlement.cases';
import { timeCases } from './message-bus/time.cases';

export type { ContractQueueOptions, MessageBusFixture } from './message-bus/context';

export interface MessageBusContractOptions {
  /**
   * How the time-dependent cases (lock expiry, renewal, TTL, scheduling, duplicate window)
   * let time pass: `clock` advances the fixture's fake clock (required then); `real` waits,
   * seconds per case (for a real Service Bus); `skip` skips them. Default `clock`.
   */
  time?: 'clock' | 'real' | 'skip';
}

/**
 * The MessageBus contract: every adapter runs these cases against a fixture made once per
 * suite; each case works in fresh queues from `fixture.queue`.
 *
 * @example
 *   runMessageBusContract('LocalBus', async () => ({ bus, queue, clock, cleanup }));
 */
export function runMessageBusContract(
  name: string,
  makeFixture: () => Promise<MessageBusFixture>,
  options: MessageBusContractOptions = {},
): void {
  const time = options.time ?? 'clock';
  let fixture: MessageBusFixture | undefined;
  const current = (): MessageBusFixture => {
    if (!fixture) throw new Error('the contract fixture is not ready (did beforeAll fail?)');
    return fixture;
  };
  const realTimeout = 120_000;
  const timeIt = (time === 'skip' ? it.skip : (caseName: string, fn: jest.ProvidesCallback) =>
    it(caseName, fn, time === 'real' ? realTimeout : undefined)) as jest.It;

  const ctx: ContractContext = {
    bus: (): MessageBus => current().bus,
    queue: (suffix: string, queueOptions?: ContractQueueOptions) => current().queue(suffix, queueOptions),
    now: () => (time === 'clock' ? (current().clock?.now() ?? new Date()) : new Date()),
    elapse: async (ms: number) => {
      const clock = current().clock;
      if (time === 'clock' && clock) await clock.advance(ms);
      else await sleep(ms);
    },
    timeIt,
  };

  describe(`MessageBus contract: ${name}`, () => {
    beforeAll(async () => {
      fixture = await makeFixture();
      if (time === 'clock' && !fixture.clock) throw new Error(`${name}: time 'clock' needs fixture.clock`);
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    describe('send and receive', () => sendReceiveCases(ctx));
    describe('sending', () => sendingCases(ctx));
    describe('settlement and dead-lettering', () => settlementCases(ctx));
    describe('completeMany', () => completeManyCases(ctx));
    describe('time: locks, TTL, scheduling, duplicate window', () => timeCases(ctx));
  });
}
