import { ConfigError } from './errors';

/** One problem in the configuration, located by file and property path. */
export interface ConfigIssue {
  /** Where the problem is: a file's basename (e.g. `jobs.yaml`), a table name, or the config folder. */
  file: string;
  /** Property path inside that file, e.g. `jobs[2].schedule`; empty for whole-file problems. */
  path: string;
  /** What is wrong and, where it helps, how to fix it. Never contains a secret value. */
  message: string;
  /**
   * The `name` of the entry `path` points into (`jobs[1]` → the name of the second job), when it
   * has one: a reader finds an entry by its name, an index has to be counted. Absent for
   * whole-file problems and for entries without a usable name.
   */
  entry?: string;
}

/** A path segment as zod reports it. */
export type PathSegment = string | number | symbol;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['jobs', 2, 'schedule']` → `jobs[2].schedule`; keys that are not identifiers are quoted. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = String(segment);
      if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** The one-line form used in error messages: `file: path: message` (no path → `file: message`). */
function formatIssue(issue: ConfigIssue): string {
  return issue.path === '' ? `${issue.file}: ${issue.message}` : `${issue.file}: ${issue.path}: ${issue.message}`;
}

const ITEM_WORD: Record<string, string> = { connections: 'connection', mappings: 'mapping', jobs: 'job', pairs: 'pair' };

/**
 * {@link formatIssue} with the entry's name after its index, as the CLI and the status page show
 * issues: `jobs.yaml: jobs[1].schedule (job "crm-contacts"): invalid NCRONTAB …`.
 */
export function formatIssueNamed(issue: ConfigIssue): string {
  const match = issue.entry === undefined ? null : /^(connections|mappings|jobs|pairs)\[\d+\]/.exec(issue.path);
  if (!match) return formatIssue(issue);
  return `${issue.file}: ${issue.path} (${ITEM_WORD[match[1]]} ${JSON.stringify(issue.entry)}): ${issue.message}`;
}

/**
 * Thrown when configuration is invalid. Keeps the name `ConfigError` so that `errorKind()`
 * classifies it as a configuration problem; `issues` holds every problem found, not just the first.
 */
export class ConfigValidationError extends ConfigError {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.issues = issues;
  }
}
