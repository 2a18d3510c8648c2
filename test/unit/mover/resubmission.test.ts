import type { BusMessage } from '../../../src/bus/message-bus';
import { resubmission, resubmissionId, sourcePath } from '../../../src/mover/resubmission';

const dlq = { queue: 'sbqnormal', subQueue: 'deadLetter' as const };

describe('resubmission', () => {
  it('ids are the original id plus source and sequence number: deterministic, unique per source message', () => {
    expect(resubmissionId('abc', dlq, '42')).toBe('abc:r:sbqnormal.dl:42');
    expect(resubmissionId('abc', { queue: 'sbqtransitivehigh' }, '42')).toBe('abc:r:sbqtransitivehigh:42');
    // A resubmission that failed again is resubmitted from its new place, without growing the id.
    expect(resubmissionId('abc:r:sbqnormal.dl:42', dlq, '97')).toBe('abc:r:sbqnormal.dl:97');
  });

  it('keeps ids within the 128 characters Service Bus allows', () => {
    const id = resubmissionId('x'.repeat(120), dlq, '12345');
    expect(id).toMatch(/^[0-9a-f]{32}:r:12345$/);
    expect(resubmissionId('x'.repeat(120), dlq, '12345')).toBe(id);
    expect(resubmissionId('y'.repeat(120), dlq, '12345')).not.toBe(id);
  });

  it('copies body, subject, correlation id, content type and properties, without the error and dead-letter properties', () => {
    const message: BusMessage = {
      body: new Uint8Array(Buffer.from('{"a":1}')),
      messageId: 'm-1',
      subject: 'job-a',
      correlationId: 'c-1',
      contentType: 'application/json',
      applicationProperties: {
        JobName: 'job-a',
        SourceKey: 'k',
        ChangeTracker: '2026-01-01',
        Custom: 7,
        ErrorMessage: 'timeout',
        ErrorType: 'TransientError',
        ErrorAt: '2026-01-01T00:00:00Z',
        DeadLetterReason: 'MaxDeliveryCountExceeded',
        DeadLetterErrorDescription: 'too many deliveries',
      },
      sequenceNumber: '5',
      deliveryCount: 10,
      enqueuedTime: new Date('2026-01-01T00:00:00Z'),
      expiresAt: new Date('2026-01-15T00:00:00Z'),
      deadLetterReason: 'MaxDeliveryCountExceeded',
    };
    const out = resubmission(message, dlq, new Date('2026-02-01T00:00:00Z'));
    expect(out).toEqual({
      body: message.body,
      messageId: 'm-1:r:sbqnormal.dl:5',
      subject: 'job-a',
      correlationId: 'c-1',
      contentType: 'application/json',
      applicationProperties: {
        JobName: 'job-a',
        SourceKey: 'k',
        ChangeTracker: '2026-01-01',
        Custom: 7,
        ResubmittedFrom: 'sbqnormal/$deadletterqueue#5',
        ResubmittedAt: '2026-02-01T00:00:00.000Z',
      },
    });
    expect(message.applicationProperties.ErrorMessage).toBe('timeout'); // the original is not changed
  });

  it('marks a forced resubmission ForceApply and drops the mark (and IgnoredReason) from any other', () => {
    const message: BusMessage = {
      body: new Uint8Array(Buffer.from('{"a":1}')),
      messageId: 'm-2',
      applicationProperties: { JobName: 'job-a', ForceApply: true, IgnoredReason: 'superseded: …' },
      sequenceNumber: '6',
      deliveryCount: 1,
      enqueuedTime: new Date('2026-01-01T00:00:00Z'),
      expiresAt: new Date('2026-01-15T00:00:00Z'),
    };
    const now = new Date('2026-01-02T00:00:00Z');
    expect(resubmission(message, { queue: 'sbqignored' }, now).applicationProperties).toEqual({
      JobName: 'job-a',
      ResubmittedFrom: 'sbqignored#6',
      ResubmittedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(resubmission(message, { queue: 'sbqignored' }, now, false, true).applicationProperties).toMatchObject({ ForceApply: true });
  });

  it('names the source as Service Bus does', () => {
    expect(sourcePath(dlq)).toBe('sbqnormal/$deadletterqueue');
    expect(sourcePath({ queue: 'sbqignored' })).toBe('sbqignored');
  });
});
