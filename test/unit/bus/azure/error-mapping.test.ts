import { translate, type MessagingError } from '@azure/core-amqp';
import { RestError } from '@azure/core-rest-pipeline';
import { AuthenticationError, CredentialUnavailableError } from '@azure/identity';
import { ServiceBusError, type ServiceBusErrorCode } from '@azure/service-bus';
import { busErrorCodeOf, toBusError, translateErrors } from '../../../../src/bus/azure/error-mapping';
import { BusError, isBusError, type BusErrorCode } from '../../../../src/bus/message-bus';

/** What the SDK throws for an AMQP error condition: core-amqp's translation, wrapped as the SDK does. */
function fromCondition(condition: string, description: string): ServiceBusError {
  return new ServiceBusError(translate({ condition, description }) as MessagingError);
}

/** A Node.js system error as `net` raises it. */
function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, errno: -111, syscall: 'connect' });
}

describe('busErrorCodeOf: ServiceBusError codes', () => {
  it.each<[ServiceBusErrorCode, BusErrorCode]>([
    ['MessageLockLost', 'LockLost'],
    ['SessionLockLost', 'LockLost'],
    ['MessageNotFound', 'LockLost'],
    ['MessagingEntityNotFound', 'QueueNotFound'],
    ['MessageSizeExceeded', 'MessageTooLarge'],
    ['ServiceBusy', 'Unavailable'],
    ['ServiceTimeout', 'Unavailable'],
    ['ServiceCommunicationProblem', 'Unavailable'],
    ['QuotaExceeded', 'Unavailable'],
    ['MessagingEntityDisabled', 'Unavailable'],
    ['SessionCannotBeLocked', 'Unavailable'],
    ['GeneralError', 'Unavailable'],
    ['UnauthorizedAccess', 'Unauthorized'],
    ['MessagingEntityAlreadyExists', 'InvalidArgument'],
  ])('%s -> %s', (sdkCode, expected) => {
    expect(busErrorCodeOf(new ServiceBusError('boom', sdkCode))).toBe(expected);
  });
});

describe('busErrorCodeOf: AMQP conditions as the SDK translates them', () => {
  it.each<[string, string, BusErrorCode]>([
    ['com.microsoft:message-lock-lost', 'The lock supplied is invalid.', 'LockLost'],
    ['com.microsoft:session-lock-lost', 'session lock lost', 'LockLost'],
    ['amqp:not-found', "The messaging entity 'sb://ns.servicebus.windows.net/sbqhigh' could not be found.", 'QueueNotFound'],
    ['amqp:link:message-size-exceeded', 'The received message exceeds the limit', 'MessageTooLarge'],
    ['com.microsoft:server-busy', 'busy', 'Unavailable'],
    ['com.microsoft:timeout', 'timeout', 'Unavailable'],
    ['amqp:resource-limit-exceeded', 'quota', 'Unavailable'],
    ['amqp:unauthorized-access', "Unauthorized access. 'Send' claim(s) are required", 'Unauthorized'],
    ['amqp:internal-error', 'internal', 'Unavailable'],
  ])('%s -> %s', (condition, description, expected) => {
    expect(busErrorCodeOf(fromCondition(condition, description))).toBe(expected);
  });
});

describe('busErrorCodeOf: network, administration and identity errors', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'EPIPE'])(
    'plain %s -> Unavailable',
    (code) => {
      expect(busErrorCodeOf(systemError(code, `connect ${code} 10.0.0.1:5671`))).toBe('Unavailable');
    },
  );

  it('ECONNREFUSED after the SDK translated it (GeneralError) -> Unavailable', () => {
    const sdk = new ServiceBusError(translate(systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5671')) as MessagingError);
    expect(sdk.code).toBe('GeneralError');
    expect(busErrorCodeOf(sdk)).toBe('Unavailable');
  });

  it.each<[number, string, BusErrorCode]>([
    [401, 'UnauthorizedRequestError', 'Unauthorized'],
    [403, 'QuotaExceededError', 'Unauthorized'],
    [404, 'MessageEntityNotFoundError', 'QueueNotFound'],
    [400, 'ServiceError', 'InvalidArgument'],
    [409, 'MessageEntityAlreadyExistsError', 'InvalidArgument'],
    [429, 'ServiceError', 'Unavailable'],
    [503, 'ServerBusyError', 'Unavailable'],
  ])('administration RestError %i (%s) -> %s', (statusCode, code, expected) => {
    expect(busErrorCodeOf(new RestError('Detailed error message', { code, statusCode }))).toBe(expected);
  });

  it('identity failures -> Unauthorized', () => {
    expect(busErrorCodeOf(new CredentialUnavailableError('ManagedIdentityCredential: no endpoint'))).toBe('Unauthorized');
    expect(busErrorCodeOf(new AuthenticationError(401, { error: 'invalid_client', error_description: 'bad secret' }))).toBe('Unauthorized');
  });

  it('SDK argument validation -> InvalidArgument; the SDK already-settled error -> LockLost; anything else -> Unavailable', () => {
    expect(busErrorCodeOf(new TypeError('Missing parameter "messages"'))).toBe('InvalidArgument');
    expect(busErrorCodeOf(new Error('The message has either been deleted or already settled'))).toBe('LockLost');
    expect(busErrorCodeOf(new Error('something odd'))).toBe('Unavailable');
    expect(busErrorCodeOf('a string')).toBe('Unavailable');
    expect(busErrorCodeOf(new BusError('Corrupt', 'x'))).toBe('Corrupt');
  });
});

describe('toBusError', () => {
  it('names the operation, queue and SDK code', () => {
    const err = toBusError(new ServiceBusError('The lock supplied is invalid.', 'MessageLockLost'), { operation: 'complete', queue: 'sbqhigh' });
    expect(err).toBeInstanceOf(BusError);
    expect(err.code).toBe('LockLost');
    expect(err.message).toBe("complete on queue 'sbqhigh' failed (MessageLockLost): The lock supplied is invalid.");
    expect(err.retryable).toBe(false);
    expect(err.cause).toBeUndefined();
  });

  it('never carries a connection string key or SAS signature into the message', () => {
    const leaky = new ServiceBusError(
      'failed for Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=S3CRET+KEY=; token SharedAccessSignature sr=x&sig=SIGVALUE&se=1',
      'UnauthorizedAccess',
    );
    const err = toBusError(leaky, { operation: 'send', queue: 'sbqlow' });
    expect(err.code).toBe('Unauthorized');
    expect(err.message).not.toContain('S3CRET');
    expect(err.message).not.toContain('SIGVALUE');
    expect(err.message).toContain('SharedAccessKey=***');
  });

  it('passes a BusError through unchanged', () => {
    const original = new BusError('MessageTooLarge', 'too big');
    expect(toBusError(original, { operation: 'send' })).toBe(original);
  });

  it('translateErrors rethrows as BusError and passes results through', async () => {
    await expect(translateErrors({ operation: 'counts', queue: 'q' }, async () => 42)).resolves.toBe(42);
    const failure = translateErrors({ operation: 'counts', queue: 'nope' }, async () => {
      throw new RestError('Entity not found', { code: 'MessageEntityNotFoundError', statusCode: 404 });
    });
    await expect(failure).rejects.toThrow("counts on queue 'nope' failed (MessageEntityNotFoundError): Entity not found");
    await failure.catch((err: unknown) => expect(isBusError(err, 'QueueNotFound')).toBe(true));
  });
});
