/**
 * The rules of the dead-letter mover: an ordered list, first match wins. Each rule has a
 * `match` (every condition given must hold; `{}` matches every message) and an `action`.
 * Validation of a rules file lives in `rules-file.ts`.
 */

/** What happens to a message: send it back to its work queue, leave it, or remove it. */
export type MoverAction = 'Resubmit' | 'None' | 'Skip';
export const MOVER_ACTIONS: readonly MoverAction[] = ['Resubmit', 'None', 'Skip'];

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

/** What the rules see of a message. */
export interface RuleSubject {
  errorMessage: string;
  errorType: string;
  deadLetterReason: string;
  jobName?: string;
  /** Milliseconds since the message was enqueued. */
  ageMs: number;
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

/** Whether every condition of the match holds. */
export function matches(match: RuleMatch, subject: RuleSubject): boolean {
  if (match.errorMessage && !match.errorMessage.test(subject.errorMessage)) return false;
  if (match.errorType && !match.errorType.test(subject.errorType)) return false;
  if (match.deadLetterReason && !match.deadLetterReason.test(subject.deadLetterReason)) return false;
  if (match.jobs && (subject.jobName === undefined || !match.jobs.includes(subject.jobName))) return false;
  if (match.olderThanMs !== undefined && !(subject.ageMs >= match.olderThanMs)) return false;
  if (match.newerThanMs !== undefined && !(subject.ageMs < match.newerThanMs)) return false;
  return true;
}

/** The first rule that matches, or undefined (the message is left: `None`). */
export function firstMatch(rules: readonly Rule[], subject: RuleSubject): Rule | undefined {
  return rules.find((rule) => matches(rule.match, subject));
}
