/**
 * The one list of what counts as a secret, shared by the config validator (a literal secret in
 * a connection's settings is refused: `src/platform/literal-secrets.ts`) and by scrubbing (error
 * texts lose secret values before they are logged, stored or sent: `scrubSecrets`). They used
 * to keep a list each and disagreed (`passphrase=` was refused in a config but kept in a log).
 */

/** Words that mark a name as a secret's wherever they occur in it (compared without case and separators). */
const SECRET_WORDS: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'signature',
  'apikey',
  'accountkey',
  'accesskey',
  'masterkey',
  'sharedkey',
  'privatekey',
  'credential',
  'authorization',
];

/** Names that are secrets only as a whole (`sig=` of a SAS, `key=` of an API). */
export const SECRET_NAMES: readonly string[] = ['sas', 'sig', 'key'];

/**
 * Endings of names that mention a secret but hold something else: where to get it or what it is
 * called (`passwordSetting`, `tokenUrl`). Only for names: a text's `tokenUrl=…` holds no secret
 * either, but scrubbing errs on the safe side there.
 */
const NON_SECRET_SUFFIXES: readonly string[] = ['url', 'uri', 'endpoint', 'path', 'file', 'name', 'setting', 'type', 'header', 'expiry', 'expiresat', 'scope', 'audience'];

/** A name without case and separators: `Shared_Access-Key` → `sharedaccesskey`. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Does a setting or property of this name hold a secret? */
export function isSecretName(name: string): boolean {
  const normalized = normalizeName(name);
  if (SECRET_NAMES.includes(normalized)) return true;
  if (NON_SECRET_SUFFIXES.some((suffix) => normalized.endsWith(suffix))) return false;
  return SECRET_WORDS.some((word) => normalized.includes(word));
}

/**
 * A regex source matching a name, in text, that ends in a secret word (any prefix, separators
 * `_`/`-` allowed between the word's letters: `api_key`, `client-secret`) or is a secret name.
 */
export function secretNamePattern(): string {
  const words = SECRET_WORDS.map((word) => word.split('').join('[_-]?')).join('|');
  return String.raw`(?:[A-Za-z0-9_-]*(?:${words})|${SECRET_NAMES.join('|')})`;
}

/**
 * A password in a URL (`scheme://user:password@host`, also with an empty user name), as a regex
 * on text. Group 1 is the scheme with `//` and the user name, group 2 the password. A user name
 * alone is not a credential (`postgres://app@db/crm` with the password in an app setting).
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)([^\s/?#@]*)@/gi;

/** Whether a URL carries a password (see {@link URL_PASSWORD}). */
export function hasUrlPassword(text: string): boolean {
  return new RegExp(URL_PASSWORD.source, 'i').test(text);
}

/**
 * A URL's whole user info (`scheme://<user info>@host`): a user name, a token used as the user
 * name (`https://TOKEN@host/`), `user:password`, or credentials percent-encoded (`user%3Apass`).
 * Group 1 is the scheme with `//`. Scrubbing hides all of it: a token alone is as secret as a
 * password, and which part is the secret cannot be told from the text.
 */
export const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
