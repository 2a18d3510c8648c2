import { z } from 'zod';
import { refuse, type RawSetting } from './setting-spec';
import { scheduleProblem, timeZoneProblem } from './schedule';
import { urlCredentialsProblem } from './url-credentials';

/**
 * The value schemas of app settings. Each takes the trimmed value (undefined when unset) and
 * gives the value the code uses; a refusal's message follows the setting's name
 * (`HIGHWATER_LOCAL_TABLES: expected azurite or sqlite, got "lokijs"`).
 */

type Schema<T> = z.ZodType<T, RawSetting>;

const raw = () => z.string().optional();
const quoted = (value: string) => JSON.stringify(value);

/** Free text (a connection string, a folder, an entity name); unset stays undefined. */
export const text = (): Schema<string | undefined> => raw();

/** Free text with a default. */
export const textOr = (fallback: string): Schema<string> => raw().transform((v) => v ?? fallback);

/** A number of seconds ≥ 0 (fractions allowed), given in ms; unset → `defaultMs`. */
export const secondsAsMs = (defaultMs: number): Schema<number> =>
  raw().transform((v, ctx) => {
    if (v === undefined) return defaultMs;
    const value = Number(v);
    return Number.isFinite(value) && value >= 0 ? value * 1000 : refuse(ctx, `expected a number of seconds ≥ 0, got ${quoted(v)}`);
  });

/** Digits only, from `min` to `max`; unset → `fallback`. `expected` names the range in the refusal. */
export const wholeNumber = (min: number, max: number, fallback: number, expected: string): Schema<number> =>
  raw().transform((v, ctx) => {
    if (v === undefined) return fallback;
    const value = /^\d+$/.test(v) ? Number(v) : NaN;
    return value >= min && value <= max ? value : refuse(ctx, `${expected}, got ${quoted(v)}`);
  });

/** A port number 1–65535; unset stays undefined (the code's default applies). */
export const port = (): Schema<number | undefined> =>
  raw().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const value = /^\d+$/.test(v) ? Number(v) : NaN;
    return value >= 1 && value <= 65535 ? value : refuse(ctx, `expected a port number 1–65535, got ${quoted(v)}`);
  });

/**
 * One of `values`, in any case, given as written in `values`; unset → `fallback`.
 * `refusal` is the message for anything else, before `, got "<value>"`.
 */
export function oneOf<const V extends string, const F extends V | undefined>(values: readonly V[], fallback: F, refusal: string): Schema<V | F> {
  return raw().transform((v, ctx) => {
    if (v === undefined) return fallback;
    const match = values.find((value) => value.toLowerCase() === v.toLowerCase());
    return match ?? refuse(ctx, `${refusal}, got ${quoted(v)}`);
  });
}

/** An NCRONTAB (6 fields, with seconds); unset → `fallback`. Whether it runs in the time zone is checked with it. */
export const schedule = (fallback: string): Schema<string> =>
  raw().transform((v, ctx) => {
    const value = v ?? fallback;
    const problem = scheduleProblem(value);
    return problem ? refuse(ctx, problem) : value;
  });

/** An IANA time zone; unset → `fallback`. */
export const timeZone = (fallback: string): Schema<string> =>
  raw().transform((v, ctx) => {
    const value = v ?? fallback;
    const problem = timeZoneProblem(value);
    return problem ? refuse(ctx, problem) : value;
  });

/** Service Bus entity names, as the local bus and Service Bus accept them. */
const QUEUE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,258}[A-Za-z0-9])?$/;

/** A queue name; unset → `fallback` (every queue setting needs a queue of its own: checked across them). */
export const queueName = (fallback: string): Schema<string> =>
  raw().transform((v, ctx) => {
    const value = v ?? fallback;
    if (QUEUE_NAME.test(value)) return value;
    return refuse(ctx, `queue name ${quoted(value)} is invalid: use 1-260 letters, digits, '.', '-', '_' or '/', starting and ending with a letter or digit`);
  });

/** An http(s) URL without credentials (the message never shows the URL); unset stays undefined. */
export const url = (): Schema<string | undefined> =>
  raw().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const problem = urlCredentialsProblem(v);
    return problem ? refuse(ctx, problem) : v;
  });
