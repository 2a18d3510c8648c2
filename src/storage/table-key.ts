import { ConfigError } from '../platform/errors';

/**
 * Longest key accepted. Table Storage allows keys "up to 1 KiB"; keys are UTF-16, so 512
 * characters is the bound that holds whatever the characters are.
 */
const MAX_TABLE_KEY_CHARS = 512;

// Table Storage rejects these in PartitionKey/RowKey (Azurite answers 500 and the SDK retries
// for seconds), so keys are checked before any request.
const FORBIDDEN: Array<[RegExp, string]> = [
  [/\//, "'/'"],
  [/\\/, "'\\'"],
  [/#/, "'#'"],
  [/\?/, "'?'"],
  // eslint-disable-next-line no-control-regex
  [/[\u0000-\u001f\u007f-\u009f]/, 'a control character'],
];

/** Why `key` cannot be a partition or row key, or undefined when it can. */
export function tableKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'is empty';
  if (key.length > MAX_TABLE_KEY_CHARS) return `is longer than ${MAX_TABLE_KEY_CHARS} characters`;
  for (const [pattern, what] of FORBIDDEN) if (pattern.test(key)) return `contains ${what}`;
  return undefined;
}

/**
 * Throws a ConfigError naming the item when `key` cannot be a table key.
 * @param label what the key names, e.g. `job` → `job "a/b" cannot be a table key: contains '/'`.
 */
export function assertTableKey(label: string, key: string): void {
  const problem = tableKeyProblem(key);
  if (problem) throw new ConfigError(`${label} ${JSON.stringify(key)} cannot be a table key: ${problem}`);
}
