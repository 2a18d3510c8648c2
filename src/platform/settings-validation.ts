import { nextOccurrence, scheduleProblem, timeZoneProblem } from './schedule';
import { ConfigValidationError, type ConfigIssue } from './config-issue';
import { urlCredentialsProblem } from './url-credentials';

/**
 * Checks the app settings before anything starts. An invalid `GetChangesSchedule` used to pass
 * until the scheduler first used it, and then crashed the running host with a cron-parser stack
 * trace. Issues read like configuration issues: `app settings: <NAME>: <what is wrong>`.
 *
 * Not checked here: connection strings (their clients check them when the host opens them,
 * before it serves, without echoing a secret) and `HIGHWATER_LOCAL_BUS_SYNCHRONOUS` (checked
 * when the bus opens, also before anything starts).
 */

/** The `file` of settings issues. */
export const SETTINGS_SOURCE = 'app settings';

/** Service Bus entity names, as the local bus and Service Bus accept them. */
const QUEUE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,258}[A-Za-z0-9])?$/;

/** What the validator needs: each setting's name with its (defaulted) value. */
export interface SettingsToCheck {
  getChangesSchedule: { name: string; value: string };
  timeZone: { name: string; value: string };
  /** Queue settings by name, in a fixed order (work, transitive, ignored). */
  queues: Array<{ name: string; value: string }>;
  /** URL settings that are set. */
  urls: Array<{ name: string; value: string }>;
}

function scheduleIssue(schedule: string, zone: string): string | undefined {
  const problem = scheduleProblem(schedule);
  if (problem) return problem;
  try {
    nextOccurrence(schedule, new Date(), zone);
    return undefined;
  } catch (err) {
    return `invalid NCRONTAB "${schedule}": ${(err as Error).message}`;
  }
}

/** Every problem of the settings, in the order of the checks. */
export function settingsIssues(s: SettingsToCheck): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (name: string, message: string) => issues.push({ file: SETTINGS_SOURCE, path: name, message });
  const zone = timeZoneProblem(s.timeZone.value);
  if (zone) add(s.timeZone.name, zone);
  const schedule = scheduleIssue(s.getChangesSchedule.value, zone ? 'UTC' : s.timeZone.value);
  if (schedule) add(s.getChangesSchedule.name, schedule);
  const owner = new Map<string, string>();
  for (const { name, value } of s.queues) {
    if (!QUEUE_NAME.test(value)) {
      add(name, `queue name ${JSON.stringify(value)} is invalid: use 1-260 letters, digits, '.', '-', '_' or '/', starting and ending with a letter or digit`);
      continue;
    }
    const first = owner.get(value.toLowerCase());
    if (first) add(name, `queue "${value}" is already the queue of ${first}: every queue setting needs a queue of its own`);
    else owner.set(value.toLowerCase(), name);
  }
  for (const { name, value } of s.urls) {
    const problem = urlCredentialsProblem(value);
    if (problem) add(name, problem);
  }
  return issues;
}

/** @throws ConfigValidationError (`ConfigError`) listing every problem. */
export function validateSettings(s: SettingsToCheck): void {
  const issues = settingsIssues(s);
  if (issues.length > 0) throw new ConfigValidationError(issues);
}
