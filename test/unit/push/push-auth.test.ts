import { checkSharedSecret, pushSignature } from '../../../src/push/push-auth';
import { rejection } from './push-fixtures';

describe('the shared secret', () => {
  const body = '{"a":1}';
  it('takes the key, the HMAC of the body, or the code parameter, and names what is wrong without a value', () => {
    expect(() => checkSharedSecret({ 'x-highwater-key': 'k3y' }, body, 'S', 'k3y')).not.toThrow();
    expect(() => checkSharedSecret({ 'x-highwater-signature': pushSignature(body, 'k3y') }, body, 'S', 'k3y')).not.toThrow();
    expect(() => checkSharedSecret({}, body, 'S', 'k3y', new URLSearchParams('code=k3y'))).not.toThrow();
    expect(rejection(() => checkSharedSecret({}, body, 'S', 'k3y', new URLSearchParams('code=k3z'))).message).toBe("code: does not match the job's push.secret");
    expect(rejection(() => checkSharedSecret({ 'x-highwater-signature': pushSignature(`${body} `, 'k3y') }, body, 'S', 'k3y')).message).toBe(
      "x-highwater-signature: not the HMAC-SHA256 of the body with the job's push.secret",
    );
    expect(rejection(() => checkSharedSecret({ 'x-highwater-key': 'k3y' }, body, 'S', undefined)).message).toBe('push.secret: app setting S is not set');
    expect(rejection(() => checkSharedSecret({ 'x-highwater-key': 'k3y' }, body, undefined, undefined)).message).toBe(
      'push.secret: not set for this job; the local host accepts pushes only with a shared secret',
    );
  });
});
