import { PermanentError } from '../../../src/platform/errors';
import { JobActionType } from '../../../src/model/job';
import {
  createQueueMessage,
  deserializeQueueMessage,
  QUEUE_MESSAGE_VERSION,
  QueueMessage,
  serializeQueueMessage,
} from '../../../src/model/queue-message';

function caught(call: () => unknown): Error {
  try {
    call();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

const valid: QueueMessage = {
  version: QUEUE_MESSAGE_VERSION,
  jobName: 'crm-accounts-to-bc',
  action: JobActionType.NewUpdate,
  sourceKey: 'ACC-1|DE',
  targetKey: { No: 'C0001' },
  changeTracker: '2026-01-02T03:04:05.1234567Z',
  fields: { Name: 'Müller GmbH', Credit: 1500.5, Active: true, Tags: ['a', 'b'], Parent: null },
  actionParameters: { mode: 'fast' },
  correlationId: '6f1c2d9e-0000-4000-8000-000000000001',
  detectedAt: '2026-01-02T03:05:00.000Z',
};

function bodyWith(patch: Record<string, unknown>): string {
  return JSON.stringify({ ...valid, ...patch });
}

describe('createQueueMessage', () => {
  it('fills version, a correlation id and detectedAt, keeping given ones', () => {
    const { version: _v, correlationId: _c, detectedAt: _d, ...init } = valid;
    const created = createQueueMessage(init);
    expect(created.version).toBe(QUEUE_MESSAGE_VERSION);
    expect(created.correlationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.isNaN(Date.parse(created.detectedAt))).toBe(false);
    expect(createQueueMessage({ ...init, correlationId: 'c-1', detectedAt: '2026-01-01T00:00:00.000Z' })).toEqual({
      ...init,
      version: QUEUE_MESSAGE_VERSION,
      correlationId: 'c-1',
      detectedAt: '2026-01-01T00:00:00.000Z',
    });
  });
});

describe('serialize / deserialize', () => {
  it('round-trips through a string body', () => {
    expect(deserializeQueueMessage(serializeQueueMessage(valid))).toEqual(valid);
  });

  it('round-trips through UTF-8 bytes', () => {
    const bytes = new Uint8Array(Buffer.from(serializeQueueMessage(valid), 'utf8'));
    expect(deserializeQueueMessage(bytes)).toEqual(valid);
  });

  it('reads only its own bytes of a view into a larger buffer', () => {
    const text = serializeQueueMessage(valid);
    const shared = Buffer.from(`{"not":"this"}${text}trailing bytes`, 'utf8');
    const view = new Uint8Array(shared.buffer, shared.byteOffset + Buffer.byteLength('{"not":"this"}'), Buffer.byteLength(text));
    expect(deserializeQueueMessage(view)).toEqual(valid);
  });

  it('accepts a message without actionParameters', () => {
    const { actionParameters: _a, ...rest } = valid;
    expect(deserializeQueueMessage(JSON.stringify(rest))).toEqual(rest);
  });

  it('rejects a body that is not JSON with the parser message', () => {
    let parserMessage = '';
    try {
      JSON.parse('{not json');
    } catch (err) {
      parserMessage = (err as Error).message;
    }
    const err = caught(() => deserializeQueueMessage('{not json'));
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe(`malformed message body: not JSON (${parserMessage})`);
  });

  it.each(['[]', '"text"', '42', 'null'])('rejects the JSON non-object %s', (body) => {
    const err = caught(() => deserializeQueueMessage(body));
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe('malformed message body: expected a JSON object');
  });

  const actions = 'expected one of NewUpdate, Delete, InvokeAction';
  it.each<[string, Record<string, unknown>, string]>([
    ['version', { version: 2 }, 'version: expected 1, got 2'],
    ['version missing', { version: undefined }, 'version: expected 1, got undefined'],
    ['jobName', { jobName: '' }, 'jobName: expected a non-empty string'],
    ['action', { action: 'TimeStamp' }, `action: ${actions}`],
    ['action type', { action: 1 }, `action: ${actions}`],
    ['sourceKey', { sourceKey: 7 }, 'sourceKey: expected a non-empty string'],
    ['targetKey', { targetKey: ['No'] }, 'targetKey: expected an object'],
    ['changeTracker', { changeTracker: 5 }, 'changeTracker: expected a string'],
    ['fields', { fields: null }, 'fields: expected an object'],
    ['actionParameters', { actionParameters: 'x' }, 'actionParameters: expected an object'],
    ['correlationId', { correlationId: null }, 'correlationId: expected a string'],
    ['detectedAt', { detectedAt: 0 }, 'detectedAt: expected a string'],
    ['several', { jobName: 1, fields: [] }, 'jobName: expected a non-empty string; fields: expected an object'],
  ])('rejects a bad %s', (_label, patch, problems) => {
    const err = caught(() => deserializeQueueMessage(bodyWith(patch)));
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe(`malformed message body: ${problems}`);
  });

  it('lists every problem of an empty object', () => {
    expect(caught(() => deserializeQueueMessage('{}')).message).toBe(
      'malformed message body: version: expected 1, got undefined; jobName: expected a non-empty string; ' +
        `action: ${actions}; sourceKey: expected a non-empty string; targetKey: expected an object; ` +
        'changeTracker: expected a string; fields: expected an object; correlationId: expected a string; ' +
        'detectedAt: expected a string',
    );
  });
});
