import { ERROR_PROPERTY, MESSAGE_PROPERTY } from '../bus/message-properties';
import type { BusMessage, PropertyValue } from '../bus/message-bus';
import type { RuleSubject } from './rules';

/**
 * What the mover needs to know of a message. The application properties come first (they are
 * what the broker shows); the JSON body fills in a message whose properties lack them.
 */
export interface MessageFacts {
  jobName?: string;
  sourceKey?: string;
  changeTracker?: string;
  errorMessage?: string;
  errorType?: string;
  errorAt?: string;
  /** Why the processor copied it to `sbqignored` (outdated, superseded), when it says. */
  ignoredReason?: string;
  deadLetterReason?: string;
  deadLetterDescription?: string;
}

function text(value: PropertyValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  const out = String(value);
  return out === '' ? undefined : out;
}

/** The body's `jobName`, `sourceKey` and `changeTracker`, when it is a JSON object holding them. */
function bodyFields(body: Uint8Array): Partial<Record<'jobName' | 'sourceKey' | 'changeTracker', string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const record = parsed as Record<string, unknown>;
  const field = (name: string) => (typeof record[name] === 'string' && record[name] !== '' ? (record[name] as string) : undefined);
  return { jobName: field('jobName'), sourceKey: field('sourceKey'), changeTracker: field('changeTracker') };
}

export function messageFacts(message: BusMessage): MessageFacts {
  const props = message.applicationProperties;
  const jobName = text(props[MESSAGE_PROPERTY.jobName]);
  const sourceKey = text(props[MESSAGE_PROPERTY.sourceKey]);
  const changeTracker = text(props[MESSAGE_PROPERTY.changeTracker]);
  const body = jobName && sourceKey && changeTracker ? {} : bodyFields(message.body);
  return {
    jobName: jobName ?? body.jobName ?? text(message.subject),
    sourceKey: sourceKey ?? body.sourceKey,
    changeTracker: changeTracker ?? body.changeTracker,
    errorMessage: text(props[ERROR_PROPERTY.message]),
    errorType: text(props[ERROR_PROPERTY.type]),
    errorAt: text(props[ERROR_PROPERTY.at]),
    ignoredReason: text(props[ERROR_PROPERTY.ignoredReason]),
    deadLetterReason: message.deadLetterReason,
    deadLetterDescription: message.deadLetterErrorDescription,
  };
}

/**
 * The error text of a message: its `ErrorMessage`, or, when it has none (dead-lettered by the
 * broker or another tool), its dead-letter description.
 */
export function errorText(facts: MessageFacts): string | undefined {
  return facts.errorMessage ?? facts.deadLetterDescription;
}

/**
 * What the report shows of a message: its error text, or why it was ignored (`IgnoredReason`).
 * Rules match the error text only: an ignored message matched no error rule before it carried a
 * reason, and must not now.
 */
export function reportText(facts: MessageFacts): string | undefined {
  return errorText(facts) ?? facts.ignoredReason;
}

/** What the rules match on; a missing text is the empty text. */
export function ruleSubject(message: BusMessage, facts: MessageFacts, now: Date): RuleSubject {
  return {
    errorMessage: errorText(facts) ?? '',
    errorType: facts.errorType ?? '',
    deadLetterReason: facts.deadLetterReason ?? '',
    jobName: facts.jobName,
    ageMs: now.getTime() - message.enqueuedTime.getTime(),
  };
}
