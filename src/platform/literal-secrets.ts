import { isSecretName, normalizeName, SECRET_NAMES } from './secret-vocabulary';
import { formatPath, type PathSegment } from './config-issue';

/**
 * Finds secrets written literally into connection settings. Secrets belong in app settings
 * (Key Vault references in Azure); the config only names them in `secrets`. Messages name the
 * path and the fix, never the value.
 */

export interface SettingProblem {
  /** Path relative to the connection, e.g. `settings.password`. */
  path: string;
  message: string;
}

/** Does a settings key, by its name, hold a secret? (The shared vocabulary: `secret-vocabulary.ts`.) */
export function isSecretKey(key: string): boolean {
  return isSecretName(key);
}

/** Secret parts of connection strings and URLs, whatever the key is called. */
const SECRET_VALUE_PATTERNS: Array<{ pattern: RegExp; what: string }> = [
  { pattern: /(?:^|;)\s*(?:password|pwd)\s*=\s*[^;\s]/i, what: 'Password=' },
  { pattern: /(?:^|;)\s*accountkey\s*=\s*[^;\s]/i, what: 'AccountKey=' },
  { pattern: /(?:^|;)\s*sharedaccesskey\s*=\s*[^;\s]/i, what: 'SharedAccessKey=' },
  { pattern: /(?:^|;)\s*sharedaccesssignature\s*=\s*[^;\s]/i, what: 'SharedAccessSignature=' },
  // Any user info: `https://:S3cr3t@host` (no user name) is a password all the same.
  { pattern: /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]*:[^\s/?#@]*@/i, what: 'a password in the URL' },
  // Any other user info: a token as the user name (`https://TOKEN@host/`), or `user%3Apass`.
  { pattern: /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i, what: 'user info in the URL' },
  { pattern: /[?&]sig=[^&\s]/i, what: 'a SAS signature (sig=)' },
];

function secretInValue(value: string): string | undefined {
  return SECRET_VALUE_PATTERNS.find(({ pattern }) => pattern.test(value))?.what;
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}

function fix(relative: readonly PathSegment[]): string {
  const key = relative.length === 1 ? relative[0] : formatPath(relative);
  return `reference an app setting in ${formatPath(['secrets', key])} instead`;
}

function walk(value: unknown, relative: PathSegment[], out: SettingProblem[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, [...relative, i], out));
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const at = [...relative, key];
      const isContainer = child !== null && typeof child === 'object';
      // `key`, `sig`, `sas` are secrets as settings of their own; nested, `key` names a field
      // (a Dataverse lookup's alternate key: `lookups.<entity>.<field>.key`).
      const nestedWholeName = relative.length > 0 && SECRET_NAMES.includes(normalizeName(key));
      if (!isContainer && !isEmpty(child) && isSecretKey(key) && !nestedWholeName) {
        out.push({ path: formatPath(['settings', ...at]), message: `literal secret not allowed; ${fix(at)}` });
      } else {
        walk(child, at, out);
      }
    }
    return;
  }
  if (typeof value === 'string') {
    const what = secretInValue(value);
    if (what) out.push({ path: formatPath(['settings', ...relative]), message: `literal secret not allowed (the value contains ${what}); ${fix(relative)}` });
  }
}

/** Literal secrets in a connection's `settings`, wherever they are nested. */
export function findLiteralSecrets(settings: Record<string, unknown>): SettingProblem[] {
  const out: SettingProblem[] = [];
  walk(settings, [], out);
  return out;
}

/**
 * The report for a top-level setting that a connector reads as a secret (e.g. `password`) but
 * finds in `settings`. Connectors use it so that a literal secret reads the same wherever it is
 * caught: when {@link findLiteralSecrets} flags the same setting, this is that very problem (so
 * config validation, which runs both, can drop the copy); otherwise — the connector knows it is a
 * secret although neither its name nor its value shows it, e.g. a `connectionString` without a
 * password — the same wording without the detail about the value.
 */
export function secretSettingProblem(key: string, value: unknown): SettingProblem {
  const path = formatPath(['settings', key]);
  const found = findLiteralSecrets({ [key]: value }).find((problem) => problem.path === path);
  return found ?? { path, message: `literal secret not allowed; ${fix([key])}` };
}
