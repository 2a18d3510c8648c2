/**
 * The rules of the dead-letter mover and the scheduled requeue, as a rules file gives them once
 * validated (`requeue-rules-schema.ts`): an ordered list, first match wins. Each rule has a
 * `match` (every condition given must hold; `{}` matches every message) and an `action`. How a
 * message is matched against them is the mover's (`src/mover/rules.ts`).
 */

/** What happens to a message: send it back to its work queue, leave it, or remove it. */
export type MoverAction = 'Resubmit' | 'None' | 'Skip';
export const MOVER_ACTIONS = ['Resubmit', 'None', 'Skip'] as const satisfies readonly MoverAction[];

/**
 * A text condition, always case-insensitive: `timeout` matches text containing "timeout";
 * `/time(d)? ?out/` is a regular expression (flags `m`, `s`, `u` may follow the closing slash).
 */
export interface TextPattern {
  /** As written in the rules file. */
  source: string;
  test(text: string): boolean;
}

export interface RuleMatch {
  /** On the `ErrorMessage` application property (a missing one is the empty text). */
  errorMessage?: TextPattern;
  /** On the `ErrorType` application property (e.g. `TransientError`). */
  errorType?: TextPattern;
  /** On the broker's dead-letter reason (e.g. `MaxDeliveryCountExceeded`). */
  deadLetterReason?: TextPattern;
  /** Exact job names (`JobName`); any of them matches. */
  jobs?: readonly string[];
  /** Only messages enqueued at least this long ago (ms). */
  olderThanMs?: number;
  /** Only messages enqueued less than this long ago (ms). */
  newerThanMs?: number;
}

export interface Rule {
  /** 0-based position in the file (`rules[i]`). */
  index: number;
  /** The rule's `name`, or `rules[i]` when it has none. */
  name: string;
  match: RuleMatch;
  action: MoverAction;
}

/** Compiles a pattern as written in a rules file. @throws Error with the reason it is invalid. */
export function compilePattern(source: string): TextPattern {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(source);
  if (regex === null) {
    const needle = source.toLowerCase();
    return { source, test: (text) => text.toLowerCase().includes(needle) };
  }
  const [, body, flags] = regex;
  const unsupported = [...flags].filter((flag) => !'imsu'.includes(flag));
  if (unsupported.length > 0) throw new Error(`unsupported regular expression flag "${unsupported.join('')}" (allowed: i, m, s, u)`);
  let compiled: RegExp;
  try {
    compiled = new RegExp(body, [...new Set(['i', ...flags])].join(''));
  } catch (err) {
    // V8 writes "Invalid regular expression: /…/i: <reason>"; the reason is what helps.
    const reason = String((err as Error).message).replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    throw new Error(`invalid regular expression ${source}: ${reason}`);
  }
  return { source, test: (text) => compiled.test(text) };
}
