import { createHmac, timingSafeEqual } from 'node:crypto';
import { PushRejection } from './push-reading';

/** Header carrying the shared secret itself (Dataverse's HttpHeader authentication can send it). */
const PUSH_KEY_HEADER = 'x-highwater-key';
/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body>` keyed with the shared secret. */
export const PUSH_SIGNATURE_HEADER = 'x-highwater-signature';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // Compared in constant time; lengths differ only for a wrong value.
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks the shared secret of a push on the local host: `x-highwater-key` equal to it,
 * `x-highwater-signature: sha256=<hex>` the HMAC-SHA256 of the raw body with it, or the query
 * parameter `code` equal to it (where a function key goes: all Business Central can send is a
 * URL). Messages name the header or parameter, never a value.
 * @param secretSetting the app setting named by `push.secret` (for messages); undefined when not set.
 * @param secret its value; undefined when the setting is not set.
 * @throws PushRejection (401) when no secret is configured, no header is sent or it does not match.
 */
export function checkSharedSecret(
  headers: Record<string, string | undefined>,
  body: string,
  secretSetting: string | undefined,
  secret: string | undefined,
  query?: URLSearchParams,
): void {
  if (secretSetting === undefined) throw new PushRejection(401, 'Unauthorized', 'push.secret: not set for this job; the local host accepts pushes only with a shared secret');
  if (!secret) throw new PushRejection(401, 'Unauthorized', `push.secret: app setting ${secretSetting} is not set`);
  const code = query?.get('code');
  if (code !== null && code !== undefined) {
    if (sameText(code, secret)) return;
    throw new PushRejection(401, 'Unauthorized', "code: does not match the job's push.secret");
  }
  const key = headers[PUSH_KEY_HEADER];
  if (key !== undefined) {
    if (sameText(key, secret)) return;
    throw new PushRejection(401, 'Unauthorized', `${PUSH_KEY_HEADER}: does not match the job's push.secret`);
  }
  const signature = headers[PUSH_SIGNATURE_HEADER];
  if (signature === undefined) throw new PushRejection(401, 'Unauthorized', `missing ${PUSH_KEY_HEADER} or ${PUSH_SIGNATURE_HEADER} header (or code parameter)`);
  const expected = `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
  if (!sameText(signature.trim().toLowerCase(), expected)) throw new PushRejection(401, 'Unauthorized', `${PUSH_SIGNATURE_HEADER}: not the HMAC-SHA256 of the body with the job's push.secret`);
}

/** The signature header value for `body` (tests, the demo, senders written against Highwater). */
export function pushSignature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
