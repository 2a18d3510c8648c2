import { BusError, type PeekOptions, type ReceivedMessage, type ReceiveOptions, type SubQueue } from '../message-bus';
import type { LockRef } from './message-store';

/** Checks of caller input, each failing with `InvalidArgument` and the property path. */

function invalid(message: string): never {
  throw new BusError('InvalidArgument', message);
}

function positiveInteger(value: number | undefined, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) invalid(`${path} must be a positive integer, got ${String(value)}`);
  return value;
}

function isDeadLetter(subQueue: SubQueue | undefined, path: string): boolean {
  if (subQueue === undefined) return false;
  if (subQueue !== 'deadLetter') invalid(`${path} must be 'deadLetter' or omitted, got ${JSON.stringify(subQueue)}`);
  return true;
}

export function receiveArguments(options: ReceiveOptions = {}): { max: number; waitMs: number; dead: boolean } {
  const waitMs = options.maxWaitMs ?? 0;
  if (!Number.isFinite(waitMs) || waitMs < 0) invalid(`options.maxWaitMs must be a number >= 0, got ${String(waitMs)}`);
  return {
    max: positiveInteger(options.maxMessages, 1, 'options.maxMessages'),
    waitMs,
    dead: isDeadLetter(options.subQueue, 'options.subQueue'),
  };
}

export function peekArguments(options: PeekOptions = {}): { max: number; fromSeq: number; dead: boolean } {
  const from = options.fromSequenceNumber;
  if (from !== undefined && !/^\d{1,15}$/.test(from)) {
    invalid(`options.fromSequenceNumber must be a decimal sequence number, got ${JSON.stringify(from)}`);
  }
  return {
    max: positiveInteger(options.maxMessages, 100, 'options.maxMessages'),
    fromSeq: from === undefined ? 0 : Number(from),
    dead: isDeadLetter(options.subQueue, 'options.subQueue'),
  };
}

/** The lock a received message carries. */
export function lockRefOf(message: ReceivedMessage): LockRef {
  if (typeof message !== 'object' || message === null) invalid('message must be a message received from this bus');
  const { sequenceNumber, lockToken, queue } = message;
  if (typeof sequenceNumber !== 'string' || !/^\d{1,15}$/.test(sequenceNumber)) {
    invalid(`message.sequenceNumber must be a decimal sequence number, got ${JSON.stringify(sequenceNumber)}`);
  }
  if (typeof lockToken !== 'string' || lockToken === '') invalid('message.lockToken must be the token of a received message');
  if (typeof queue !== 'string') invalid('message.queue must be the queue the message was received from');
  return { seq: Number(sequenceNumber), token: lockToken };
}

export function messagesArgument<T>(messages: T[]): T[] {
  if (!Array.isArray(messages)) invalid('messages must be an array');
  return messages;
}

/** The error for settling with a lock that expired, was settled, or belongs to an older delivery. */
export function lockLostError(message: ReceivedMessage): BusError {
  return new BusError(
    'LockLost',
    `The lock on message ${message.sequenceNumber} of queue "${message.queue}" is lost (expired, settled, or superseded by a later delivery)`,
  );
}
