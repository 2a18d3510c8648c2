import {
  ConfigError,
  type ErrorKind,
  type HighwaterError,
  type HighwaterErrorOptions,
  PermanentError,
  TransientError,
  TransitiveError,
} from './errors';

/**
 * One row of an error table ("this failure → what to do with the work"), the one shape of the
 * storage table (`src/storage/table-errors.ts`) and of every connector's (SQLite, PostgreSQL,
 * OData, token endpoints). A table is checked top to bottom and the first row whose `code` (and
 * `message`, when given) matches decides the kind; each module keeps all of its rows in one table.
 */
export interface ErrorRule {
  /** The failure's code: exact text, or a pattern such as `/^08/` for a whole SQLSTATE class or `/^\w+ 5\d\d$/` for HTTP. */
  code: string | RegExp;
  /** Also required to match the failure's message (for sources that use one code for many causes). */
  message?: RegExp;
  kind: ErrorKind;
  /** What happened or what to check, in words, for the error message. Default: none (the table's module words it). */
  reason?: string;
  /** Leave the failure's own message out (auth failures: keep user names and hosts out of logs). Default false. */
  hideDriverMessage?: boolean;
}

/** The first row of `rules` matching `code` and `message`; undefined when none does. */
export function matchRule(rules: readonly ErrorRule[], code: string, message = ''): ErrorRule | undefined {
  return rules.find((r) => (typeof r.code === 'string' ? r.code === code : r.code.test(code)) && (!r.message || r.message.test(message)));
}

/** The taxonomy's error of `kind`. */
export function createError(kind: ErrorKind, message: string, options: HighwaterErrorOptions = {}): HighwaterError {
  switch (kind) {
    case 'transitive':
      return new TransitiveError(message, options);
    case 'permanent':
      return new PermanentError(message, options);
    case 'config':
      return new ConfigError(message, options);
    default:
      return new TransientError(message, options);
  }
}
