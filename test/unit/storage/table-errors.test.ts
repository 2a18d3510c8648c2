import { errorKind } from '../../../src/platform/errors';
import { toStorageError } from '../../../src/storage/table-errors';
import { assertTableKey, tableKeyProblem } from '../../../src/storage/table-key';

const restError = (statusCode: number | undefined, code?: string, message = 'm', odataCode?: string) => ({
  name: 'RestError',
  statusCode,
  code,
  message,
  details: odataCode ? { odataError: { code: odataCode, message: { value: `${message}\nRequestId:1` } } } : undefined,
});

describe('toStorageError', () => {
  it.each([
    [401, 'config'],
    [403, 'config'],
    [400, 'permanent'],
    [404, 'permanent'],
    [409, 'permanent'],
    [412, 'permanent'],
    [408, 'transient'],
    [429, 'transient'],
    [500, 'transient'],
    [503, 'transient'],
  ])('classifies status %i as %s', (status, kind) => {
    expect(errorKind(toStorageError(restError(status), 'get', 't'))).toBe(kind);
  });

  it('classifies network failures as transient', () => {
    const err = toStorageError(restError(undefined, 'ECONNRESET', 'socket hang up'), 'query', 'jobs');
    expect(errorKind(err)).toBe('transient');
    expect(err.message).toBe('table query on "jobs" failed: ECONNRESET socket hang up');
  });

  it('uses the first line of the service message and a hint for access problems', () => {
    const err = toStorageError(restError(403, undefined, 'Server failed to authenticate the request.', 'AuthorizationFailure'), 'upsert', 'jobs');
    expect(err.message).toBe(
      'table upsert on "jobs" failed: 403 AuthorizationFailure Server failed to authenticate the request. (check AzureWebJobsStorage or the identity’s table role)',
    );
  });

  it('never repeats a credential', () => {
    const err = toStorageError(restError(undefined, 'X', 'bad https://a.table.core.windows.net/?sv=1&sig=SECRETSIG AccountKey=KEY;'), 'get', 't');
    expect(err.message).not.toMatch(/SECRETSIG|KEY;/);
    expect(err.message).toBe('table get on "t" failed: X bad https://a.table.core.windows.net/?sv=1&sig=*** AccountKey=***;');
  });
});

describe('table keys', () => {
  it.each([
    ['ok-name.1 with spaces', undefined],
    ['', 'is empty'],
    ['a\\b', "contains '\\'"],
    ['a\u007fb', 'contains a control character'],
    ['x'.repeat(513), 'is longer than 512 characters'],
  ])('%j → %s', (key, problem) => {
    expect(tableKeyProblem(key)).toBe(problem);
  });

  it('throws a ConfigError naming the item', () => {
    expect(() => assertTableKey('job', 'a?b')).toThrow(`job "a?b" cannot be a table key: contains '?'`);
  });
});
