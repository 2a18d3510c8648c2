import { types } from 'rhea';
import type { Reader } from 'rhea/typings/types';
import { decodePropertiesToModify, encodePropertiesToModify, serviceBusSettler } from '../../../functions/support/service-bus-settler';
import { FakeSettlement } from './support/fake-settlement';

const LOCK = 'lock-1';
const ERROR_PROPERTIES = { ErrorMessage: 'target "erp": 503 Service Unavailable', ErrorType: 'TransientError', ErrorAt: '2026-03-01T08:00:00.000Z' };

/** Type names of the encoded map's values, in order (rhea's view of the AMQP encoding). */
function valueTypes(bytes: Uint8Array): string[] {
  const amqp = types as typeof types & { Reader: new (buffer: Buffer) => Reader };
  const map = new amqp.Reader(Buffer.from(bytes)).read();
  return (map.value as Array<{ type: { name: string } }>).filter((_, i) => i % 2 === 1).map((v) => v.type.name);
}

describe('propertiesToModify encoding (AMQP map for the host)', () => {
  it('writes a map32 of string keys that reads back to the same properties', () => {
    const bytes = encodePropertiesToModify(ERROR_PROPERTIES);
    expect(bytes[0]).toBe(0xd1);
    expect(decodePropertiesToModify(bytes)).toEqual(ERROR_PROPERTIES);
  });

  it('encodes numbers as int, long or double, and keeps booleans and null', () => {
    const properties = { small: -5, count: 70_000, big: 2 ** 40, ratio: 0.5, flag: true, none: null };
    const bytes = encodePropertiesToModify(properties);
    // SmallInt is AMQP int in its one-byte form.
    expect(valueTypes(bytes)).toEqual(['SmallInt', 'Int', 'Long', 'Double', 'True', 'Null']);
    expect(decodePropertiesToModify(bytes)).toEqual(properties);
  });

  it('encodes no properties as an empty map', () => {
    expect(decodePropertiesToModify(encodePropertiesToModify({}))).toEqual({});
  });
});

describe('MessageSettler on the settlement actions', () => {
  it('abandons with the error properties encoded', async () => {
    const actions = new FakeSettlement();
    await serviceBusSettler(actions, LOCK).abandon(ERROR_PROPERTIES);
    expect(actions.records).toHaveLength(1);
    expect(actions.records[0]).toMatchObject({ action: 'abandon', lockToken: 'lock-1' });
    expect(decodePropertiesToModify(actions.records[0].propertiesToModify ?? new Uint8Array())).toEqual(ERROR_PROPERTIES);
  });

  it('dead-letters with reason, description and the error properties encoded', async () => {
    const actions = new FakeSettlement();
    await serviceBusSettler(actions, LOCK).deadLetter({ reason: 'PermanentError', description: 'unknown job "x"', propertiesToModify: ERROR_PROPERTIES });
    expect(actions.records[0]).toMatchObject({
      action: 'deadLetter',
      reason: 'PermanentError',
      description: 'unknown job "x"',
    });
    expect(decodePropertiesToModify(actions.records[0].propertiesToModify ?? new Uint8Array())).toEqual(ERROR_PROPERTIES);
  });

  it('renews the lock while unsettled and fails to settle twice', async () => {
    const actions = new FakeSettlement();
    const settler = serviceBusSettler(actions, LOCK);
    await settler.renewLock();
    await settler.complete();
    await expect(settler.abandon()).rejects.toThrow('lock lock-1 lost: the message was already settled');
    await expect(settler.renewLock()).rejects.toThrow('lock lock-1 lost');
    expect(actions.records.map((r) => r.action)).toEqual(['renewMessageLock', 'complete']);
  });

  it('abandons without properties when none are given', async () => {
    const actions = new FakeSettlement();
    await serviceBusSettler(actions, LOCK).abandon();
    expect(actions.records[0].propertiesToModify).toBeUndefined();
  });
});
