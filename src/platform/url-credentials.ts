import { hasUrlPassword } from './secret-vocabulary';

/**
 * Why a URL setting is refused, or undefined when it is fine: it must parse, use http(s), and
 * carry no password (`https://:S3cr3t@host/` passed the literal-secret check and was then printed
 * in run errors and stored in the `runs` table). The message never shows the URL: it may hold
 * the very secret it is about.
 */
export function urlCredentialsProblem(value: string): string | undefined {
  if (hasUrlPassword(value)) return 'a password in the URL is not allowed; put it in an app setting and reference it in secrets instead';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a valid URL (expected https://host/…)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an http(s) URL, got the scheme "${url.protocol.replace(/:$/, '')}"`;
  if (url.password !== '' || url.username !== '') return 'credentials in the URL are not allowed; put them in app settings and reference them in secrets instead';
  return undefined;
}
