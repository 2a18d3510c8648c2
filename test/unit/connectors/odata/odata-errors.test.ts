import { classifyHttpFailure, parseRetryAfter } from '../../../../connectors/odata';
import { MALFORMED_ANSWER } from '../../../../connectors/base/error-classification';
import { parseBatch } from '../../../../connectors/odata/batch-multipart';
import { classifyNetworkError, MAX_RETRY_AFTER_MS, parseErrorBody } from '../../../../connectors/odata/odata-errors';

const options = { operation: 'odata connection "c": upsert Books(ID=1)', redact: (t: string) => t.split('hunter2').join('***') };
const classify = (method: string, status: number, message = 'boom', serviceCode?: string, retryAfterMs?: number) =>
  classifyHttpFailure({ method, status, message, serviceCode, retryAfterMs }, options);

describe('the OData error table', () => {
  it.each([
    ['GET', 429, 'TransientError', 'throttled by the service (retry after Retry-After)'],
    ['PATCH', 503, 'TransientError', 'the service is unavailable (retry after Retry-After)'],
    ['POST', 500, 'TransientError', 'server error'],
    ['POST', 504, 'TransientError', 'server error'],
    ['PATCH', 408, 'TransientError', 'the service timed out'],
    ['PATCH', 400, 'PermanentError', 'the service rejected the request'],
    ['POST', 422, 'PermanentError', 'the service rejected the request'],
    ['POST', 413, 'PermanentError', 'the request is too large'],
    ['GET', 404, 'ConfigError', 'the entity set or path does not exist'],
    ['PATCH', 404, 'TransitiveError', 'a referenced record does not exist (yet)'],
    ['POST', 404, 'TransitiveError', 'a referenced record does not exist (yet)'],
    ['GET', 403, 'ConfigError', 'access denied: the identity lacks a permission'],
    ['PATCH', 412, 'TransientError', 'the record changed since it was read (ETag)'],
    ['POST', 409, 'TransientError', 'conflict with a concurrent change'],
    ['PATCH', 428, 'ConfigError', 'the service requires If-Match: use upsertMode read-then-write'],
    ['POST', 405, 'ConfigError', 'the service does not support this operation'],
    ['GET', 418, 'PermanentError', 'the service refused the request'],
  ])('%s %i is a %s', (method, status, name, reason) => {
    const err = classify(method, status);
    expect(err.name).toBe(name);
    expect(err.message).toBe(`odata connection "c": upsert Books(ID=1): ${reason} (${method} ${status}): boom`);
    expect(err.details).toEqual({ code: `${method} ${status}`, status, serviceCode: undefined });
  });

  // The services' own words (CAP answers captured from @sap/cds 9; Dataverse's as Microsoft documents them in
  // "Troubleshoot Dataverse Web API client errors"): a schema mismatch pauses the target, a missing record stays the item's.
  it.each([
    ['PATCH', 404, 'Invalid resource path "CatalogService.Bookz"', undefined, 'ConfigError', 'the entity set does not exist'],
    ['DELETE', 404, 'Invalid resource path "CatalogService.Bookz"', undefined, 'ConfigError', 'the entity set does not exist'],
    ['PATCH', 404, "Resource not found for the segment 'Account'.", '0x8006088a', 'ConfigError', 'the entity set does not exist'],
    ['PATCH', 400, 'Property "titel" does not exist in CatalogService.Books', undefined, 'ConfigError', 'a property does not exist on the entity'],
    ['PATCH', 400, "The property 'namez' does not exist on type 'Microsoft.Dynamics.CRM.account'. Make sure to only use property names that are defined by the type.", '0x80048d19', 'ConfigError', 'a property does not exist on the entity'],
    ['GET', 400, "Could not find a property named 'Name' on type 'Microsoft.Dynamics.CRM.account'.", '0x0', 'ConfigError', 'a property does not exist on the entity'],
    ['GET', 404, 'Bad Request - Error in query syntax.', 'BadRequest_NotFound', 'ConfigError', 'the entity set or path does not exist'],
    ['PATCH', 404, 'Bad Request - Error in query syntax.', 'BadRequest_NotFound', 'ConfigError', 'the entity set does not exist'],
    ['PATCH', 404, 'The Customer does not exist. Identification fields and values: No.=\'C-9\'', 'Internal_RecordNotFound', 'TransitiveError', 'a referenced record does not exist (yet)'],
    ['PATCH', 404, 'Not Found', undefined, 'TransitiveError', 'a referenced record does not exist (yet)'],
    ['PATCH', 404, 'A record with the specified key values does not exist in account entity', '0x80060891', 'TransitiveError', 'a referenced record does not exist (yet)'],
    ['DELETE', 404, 'account With Id = accountnumber:A-9 Does Not Exist', '0x80040217', 'TransitiveError', 'a referenced record does not exist (yet)'],
    ['PATCH', 400, 'Element "ID" does not contain a valid UUID', undefined, 'PermanentError', 'the service rejected the request'],
  ])('%s %i "%s" is a %s', (method, status, message, serviceCode, name, reason) => {
    const err = classify(method, status, message, serviceCode);
    expect(err.name).toBe(name);
    expect(err.message).toBe(`odata connection "c": upsert Books(ID=1): ${reason} (${method} ${status}): ${message}${serviceCode ? ` [${serviceCode}]` : ''}`);
  });

  it('tells a record deleted since it was read (404 on a PATCH with If-Match) from a missing dependency (404 without)', () => {
    const gone = (method: string, status: number, conditional: boolean) =>
      classifyHttpFailure({ method, status, message: "The Customer does not exist. Identification fields and values: No.='C-1'", serviceCode: 'Internal_RecordNotFound', conditional }, options);
    expect(gone('PATCH', 404, true)).toMatchObject({
      name: 'TransientError',
      message: `odata connection "c": upsert Books(ID=1): the record was deleted since it was read (read again: it is created) (PATCH 404 if-match): The Customer does not exist. Identification fields and values: No.='C-1' [Internal_RecordNotFound]`,
      details: { code: 'PATCH 404', status: 404, serviceCode: 'Internal_RecordNotFound' },
    });
    expect(gone('PATCH', 404, false).name).toBe('TransitiveError');
    // A bound action on a record that is gone waits as before; other statuses of a conditional request are the plain code's.
    expect(gone('POST', 404, true).name).toBe('TransitiveError');
    expect(gone('PATCH', 412, true).message).toContain('the record changed since it was read (ETag) (PATCH 412)');
    expect(gone('PATCH', 400, true).name).toBe('PermanentError');
  });

  it('keeps the service message out of 401 and secret values out of every message', () => {
    expect(classify('GET', 401, 'token for tenant contoso rejected').message).toBe(
      'odata connection "c": upsert Books(ID=1): authentication failed: check settings.auth and its secret (GET 401)',
    );
    expect(classify('POST', 400, "literal 'hunter2' is invalid", '0x80048d19').message).toBe(
      "odata connection \"c\": upsert Books(ID=1): the service rejected the request (POST 400): literal '***' is invalid [0x80048d19]",
    );
  });

  it('carries Retry-After as retryAfterMs', () => {
    expect(classify('PATCH', 429, 'slow down', undefined, 37_000)).toMatchObject({ name: 'TransientError', retryAfterMs: 37_000 });
    expect(parseRetryAfter('37', new Date())).toBe(37_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', new Date('2026-10-21T07:28:00Z'))).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', new Date('2026-10-21T08:00:00Z'))).toBe(0);
    expect(parseRetryAfter('soon', new Date())).toBeUndefined();
    expect(parseRetryAfter(null, new Date())).toBeUndefined();
  });

  it('honours Retry-After on every retried answer (a Business Central 502 too), never on one that is not retried, and bounds it', () => {
    expect(classify('PATCH', 502, 'Bad Gateway', undefined, 10_000)).toMatchObject({ name: 'TransientError', retryAfterMs: 10_000 });
    expect(classify('GET', 504, 'Gateway Timeout', undefined, 5_000)).toMatchObject({ name: 'TransientError', retryAfterMs: 5_000 });
    expect(classify('POST', 409, 'conflict', undefined, 2_000)).toMatchObject({ name: 'TransientError', retryAfterMs: 2_000 });
    // A dead-lettered or parked message waits for nothing: the header is dropped.
    expect(classify('PATCH', 400, 'bad', undefined, 10_000).retryAfterMs).toBeUndefined();
    expect(classify('PATCH', 404, 'Not Found', undefined, 10_000).retryAfterMs).toBeUndefined();
    expect(parseRetryAfter('86400', new Date())).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Wed, 28 Oct 2026 07:28:30 GMT', new Date('2026-10-21T07:28:00Z'))).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(3_600_000);
  });

  it('reads OData error bodies and anything else', () => {
    expect(parseErrorBody('{"error":{"code":"0x80044352","message":"Version stamp expired"}}', 'Bad Request')).toEqual({ message: 'Version stamp expired', serviceCode: '0x80044352' });
    expect(parseErrorBody('<html>\n<body>Bad gateway</body></html>', 'Bad Gateway')).toEqual({ message: '<html> <body>Bad gateway</body></html>' });
    expect(parseErrorBody('', 'Service Unavailable')).toEqual({ message: 'Service Unavailable' });
  });

  it('classifies network failures and timeouts as transient', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    expect(classifyNetworkError(refused, options)).toMatchObject({
      name: 'TransientError',
      message: 'odata connection "c": upsert Books(ID=1): the service is unreachable (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:9',
    });
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    expect(classifyNetworkError(timeout, options)).toMatchObject({ name: 'TransientError', message: expect.stringContaining('no answer within settings.timeoutMs (TimeoutError)') });
  });

  it('gives a malformed answer the one kind decided for it, in the table and in the $batch parser', () => {
    expect(MALFORMED_ANSWER).toBe('transient');
    const invalid = classifyNetworkError(Object.assign(new Error('not JSON'), { code: 'InvalidResponse' }), options);
    expect(invalid).toMatchObject({ name: 'TransientError', message: expect.stringContaining('the answer is not OData JSON (InvalidResponse)') });
    expect(() => parseBatch('--b\r\nContent-Type: application/http\r\n\r\nnonsense\r\n--b--', 'b')).toThrow(expect.objectContaining({ name: 'TransientError' }));
  });
});
