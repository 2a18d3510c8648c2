import { createHash } from 'node:crypto';
import { PermanentError, TransitiveError } from '../../../src/platform/errors';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, deserializeQueueMessage } from '../../../src/model/queue-message';
import {
  ERROR_PROPERTY,
  MAX_ERROR_MESSAGE_LENGTH,
  MESSAGE_TIME_TO_LIVE_MS,
  errorProperties,
  messageIdFor,
  safeErrorText,
  scrubSecrets,
  toOutgoingMessage,
  withoutErrorProperties,
} from '../../../src/bus/message-properties';

const message = createQueueMessage({
  jobName: 'crm-accounts-to-bc',
  action: JobActionType.NewUpdate,
  sourceKey: 'ACC-1|DE',
  targetKey: { No: 'C-1' },
  changeTracker: '2024-05-01T10:00:00.000Z',
  fields: { Name: 'Contoso' },
  correlationId: 'corr-1',
  detectedAt: '2024-05-01T10:00:05.000Z',
});

describe('messageIdFor', () => {
  it('is the first 32 hex characters of sha256 over the JSON array of job, sourceKey, changeTracker, action', () => {
    const expected = createHash('sha256')
      .update(JSON.stringify(['crm-accounts-to-bc', 'ACC-1|DE', '2024-05-01T10:00:00.000Z', 'NewUpdate']))
      .digest('hex')
      .slice(0, 32);
    expect(messageIdFor(message)).toBe(expected);
    expect(messageIdFor(message)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('is the same for the same change detected twice (a new correlation id and detection time)', () => {
    const again = { ...message, correlationId: 'corr-2', detectedAt: '2024-05-02T00:00:00.000Z', fields: { Name: 'Other' } };
    expect(messageIdFor(again)).toBe(messageIdFor(message));
  });

  it('after a reset, takes the resync token in (a resend the user asked for gets ids of its own), the same for every send with that token', () => {
    const expected = createHash('sha256')
      .update(JSON.stringify(['crm-accounts-to-bc', 'ACC-1|DE', '2024-05-01T10:00:00.000Z', 'NewUpdate', '2026-12-06T04:00:00.000Z~0a1b2c']))
      .digest('hex')
      .slice(0, 32);
    const resent = { ...message, resync: '2026-12-06T04:00:00.000Z~0a1b2c' };
    expect(messageIdFor(resent)).toBe(expected);
    expect(messageIdFor(resent)).not.toBe(messageIdFor(message));
    expect(messageIdFor({ ...resent, sourceKey: resent.sourceKey })).toBe(expected);
  });

  it('differs when any identity part differs, and separators cannot make parts collide', () => {
    const ids = new Set([
      messageIdFor(message),
      messageIdFor({ ...message, jobName: 'other' }),
      messageIdFor({ ...message, sourceKey: 'ACC-2|DE' }),
      messageIdFor({ ...message, changeTracker: '2024-05-01T10:00:00.001Z' }),
      messageIdFor({ ...message, action: JobActionType.Delete }),
      messageIdFor({ jobName: 'a|b', sourceKey: 'c', changeTracker: 'x', action: 'NewUpdate' }),
      messageIdFor({ jobName: 'a', sourceKey: 'b|c', changeTracker: 'x', action: 'NewUpdate' }),
    ]);
    expect(ids.size).toBe(7);
  });
});

describe('toOutgoingMessage', () => {
  it('carries the JSON body, deterministic id, subject, correlation id, content type, TTL and the standard properties', () => {
    const out = toOutgoingMessage(message);
    expect(out).toEqual({
      body: JSON.stringify(message),
      messageId: messageIdFor(message),
      subject: 'crm-accounts-to-bc',
      correlationId: 'corr-1',
      contentType: 'application/json',
      timeToLiveMs: 14 * 24 * 60 * 60 * 1000,
      applicationProperties: { JobName: 'crm-accounts-to-bc', SourceKey: 'ACC-1|DE', ChangeTracker: '2024-05-01T10:00:00.000Z' },
    });
    expect(MESSAGE_TIME_TO_LIVE_MS).toBe(1_209_600_000);
    expect(deserializeQueueMessage(out.body)).toEqual(message);
  });

  it('adds extra properties (e.g. error properties) next to the standard ones', () => {
    const out = toOutgoingMessage(message, { ErrorMessage: 'missing parent', ErrorType: 'TransitiveError' });
    expect(out.applicationProperties).toEqual({
      JobName: 'crm-accounts-to-bc',
      SourceKey: 'ACC-1|DE',
      ChangeTracker: '2024-05-01T10:00:00.000Z',
      ErrorMessage: 'missing parent',
      ErrorType: 'TransitiveError',
    });
  });
});

describe('scrubSecrets', () => {
  it.each([
    [
      'connect failed: Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=abc+/def=;EntityPath=q',
      'connect failed: Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=***;EntityPath=q',
    ],
    [
      'DefaultEndpointsProtocol=https;AccountName=dev;AccountKey=Eby8vdM02x==;TableEndpoint=http://x',
      'DefaultEndpointsProtocol=https;AccountName=dev;AccountKey=***;TableEndpoint=http://x',
    ],
    ['Server=db;User Id=sa;Password=Pa55w0rd!;Database=crm', 'Server=db;User Id=sa;Password=***;Database=crm'],
    ['GET https://acc.blob.core.windows.net/c?sv=2022&sig=AbC%2Fd%3D&se=2024', 'GET https://acc.blob.core.windows.net/c?sv=2022&sig=***&se=2024'],
    ['401 with Authorization: Bearer eyJhbGciOi.eyJzdWIiOiIx.sig-part', '401 with Authorization: Bearer ***'],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic ***'],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_DEF-1 rejected', 'token *** rejected'],
    ['{"client_secret":"s3cr3t","user":"bob"}', '{"client_secret":"***","user":"bob"}'],
    ['config: { password: hunter2 }', 'config: { password: *** }'],
    ['postgres://app:topsecret@db.local:5432/crm refused', 'postgres://***@db.local:5432/crm refused'],
    ['refresh_token=r1&access_token=a2', 'refresh_token=***&access_token=***'],
    // A password after an empty user name, and words the validator knew but scrubbing did not.
    ['GET https://:S3cr3t@host/odata/Accounts failed', 'GET https://***@host/odata/Accounts failed'],
    ['https://sync:@bc.example.com/api refused', 'https://***@bc.example.com/api refused'],
    // Any user info: a token as the only user info, percent-encoded credentials, a user name.
    ['GET http://T0k3n@crm.example.com/odata/ failed', 'GET http://***@crm.example.com/odata/ failed'],
    ['GET https://sync%3AS3cr3t@crm.example.com/ failed', 'GET https://***@crm.example.com/ failed'],
    ['open postgres://sync@db/crm and https://a:b@x/y?mail=c@d', 'open postgres://***@db/crm and https://***@x/y?mail=c@d'],
    ['cert load failed: passphrase=hunter2; credential=abc', 'cert load failed: passphrase=***; credential=***'],
    ['{"auth": {"clientCertificatePassphrase": "hunter2"}}', '{"auth": {"clientCertificatePassphrase": "***"}}'],
  ])('scrubs %s', (input, expected) => {
    expect(scrubSecrets(input)).toBe(expected);
  });

  it('leaves ordinary keys and text alone', () => {
    const text = "upsert of SourceKey=ACC-1 failed: duplicate RowKey 'x'; PartitionKey=watermark; key fields No, Name";
    expect(scrubSecrets(text)).toBe(text);
  });
});

describe('safeErrorText', () => {
  it('caps at the limit with an ellipsis as the last character', () => {
    const capped = safeErrorText('x'.repeat(5000));
    expect(capped).toHaveLength(MAX_ERROR_MESSAGE_LENGTH);
    expect(capped.endsWith('x…')).toBe(true);
    expect(safeErrorText('short', 10)).toBe('short');
    expect(safeErrorText('0123456789A', 10)).toBe('012345678…');
  });

  it('scrubs before cutting, so a secret at the cut is not half-kept', () => {
    const text = `${'a'.repeat(980)} Password=abcdefghijklmnop`; // 1,006 characters before scrubbing
    expect(safeErrorText(text)).toBe(`${'a'.repeat(980)} Password=***`);
  });
});

describe('errorProperties', () => {
  const now = new Date('2024-05-01T12:34:56.789Z');

  it('names the error, its type and the time', () => {
    expect(errorProperties(new TransitiveError('parent account ACC-9 not found'), now)).toEqual({
      ErrorMessage: 'parent account ACC-9 not found',
      ErrorType: 'TransitiveError',
      ErrorAt: '2024-05-01T12:34:56.789Z',
    });
  });

  it('scrubs secrets and caps the message', () => {
    const err = new PermanentError(`login failed for Password=letmein; ${'y'.repeat(2000)}`);
    const props = errorProperties(err, now);
    expect(props[ERROR_PROPERTY.message]).toHaveLength(1000);
    expect(String(props[ERROR_PROPERTY.message]).startsWith('login failed for Password=***; yyy')).toBe(true);
    expect(JSON.stringify(props)).not.toContain('letmein');
  });

  it('describes thrown non-errors', () => {
    expect(errorProperties('plain string', now)).toEqual({ ErrorMessage: 'plain string', ErrorType: 'string', ErrorAt: now.toISOString() });
  });

  it('withoutErrorProperties removes exactly the error properties', () => {
    const props = { JobName: 'j', SourceKey: 's', ...errorProperties(new Error('e'), now) };
    expect(withoutErrorProperties(props)).toEqual({ JobName: 'j', SourceKey: 's' });
  });
});
