import type { Rule, RuleMatch } from '../config/requeue-rules';

/**
 * Matching messages against the rules of the dead-letter mover: an ordered list, first match
 * wins; a message no rule matches is left (`None`). The rules' shape and the validation of a
 * rules file are configuration (`src/config/requeue-rules.ts`, `requeue-rules-schema.ts`).
 */

/** What the rules see of a message. */
export interface RuleSubject {
  errorMessage: string;
  errorType: string;
  deadLetterReason: string;
  jobName?: string;
  /** Milliseconds since the message was enqueued. */
  ageMs: number;
}

/** Whether every condition of the match holds. */
function matches(match: RuleMatch, subject: RuleSubject): boolean {
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
