import type { z } from 'zod';
import type { RawSetting, SettingSchema } from './setting-spec';
import { scheduleProblem, timeZoneProblem } from './schedule';
import { urlCredentialsProblem } from './url-credentials';

/**
 * The value schemas of app settings. Each takes the trimmed value (undefined when unset) and
 * gives the value the code uses; a refusal's message follows the setting's name
 * (`HIGHWATER_LOCAL_TABLES: expected azurite or sqlite, got "lokijs"`).
 *
 * Built on first use: the registry is imported by the CLI entry, which must not load zod before a
 * command runs (test/integration/runtime/module-footprint.test.ts).
 */

type Zod = typeof z;
type Schema<T> = SettingSchema<T>;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when a setting is first read, not with the registry
const zod = (): Zod => (require('zod') as typeof import('zod')).z;

/** A schema built once, when first asked for. */
function lazy<T>(build: (z: Zod) => z.ZodType<T, RawSetting>): Schema<T> {
  let built: z.ZodType<T, RawSetting> | undefined;
  return () => (built ??= build(zod()));
}

/** A refusal with `message` for the value (the setting's name comes before it). */
function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return zod().NEVER;
}

const raw = (z: Zod) => z.string().optional();
const quoted = (value: string) => JSON.stringify(value);

/** Free text (a connection string, a folder, an entity name); unset stays undefined. */
export const text = (): Schema<string | undefined> => lazy((z) => raw(z));

/** Read by the platform only: the code never uses the value. */
export const ignored = (): Schema<undefined> => lazy((z) => raw(z).transform(() => undefined));

/** Free text with a default. */
export const textOr = (fallback: string): Schema<string> => lazy((z) => raw(z).transform((v) => v ?? fallback));

/** A schema from a parse of the value; `no(message)` refuses it. */
const checked = <T>(parse: (value: RawSetting, no: (message: string) => never) => T): Schema<T> =>
  lazy((z) => raw(z).transform((v, ctx) => parse(v, (message) => refuse(ctx, message))));

/** A number of seconds ≥ 0 (fractions allowed), given in ms; unset → `defaultMs`. */
export const secondsAsMs = (defaultMs: number): Schema<number> =>
  checked((v, no) => {
    if (v === undefined) return defaultMs;
    const value = Number(v);
    return Number.isFinite(value) && value >= 0 ? value * 1000 : no(`expected a number of seconds ≥ 0, got ${quoted(v)}`);
  });

/** {@link secondsAsMs} where unset and 0 both mean off (undefined). */
export const secondsAsMsOrOff = (): Schema<number | undefined> =>
  checked((v, no) => {
    const value = v === undefined ? 0 : Number(v);
    if (!Number.isFinite(value) || value < 0) return no(`expected a number of seconds ≥ 0, got ${quoted(v ?? '')}`);
    return value === 0 ? undefined : value * 1000;
  });

/** Digits only, from `min` to `max`; unset → `fallback`. `expected` names the range in the refusal. */
export const wholeNumber = (min: number, max: number, fallback: number, expected: string): Schema<number> =>
  checked((v, no) => {
    if (v === undefined) return fallback;
    const value = /^\d+$/.test(v) ? Number(v) : NaN;
    return value >= min && value <= max ? value : no(`${expected}, got ${quoted(v)}`);
  });

/** A port number 1–65535; unset stays undefined (the code's default applies). */
export const port = (): Schema<number | undefined> =>
  checked((v, no) => {
    if (v === undefined) return undefined;
    const value = /^\d+$/.test(v) ? Number(v) : NaN;
    return value >= 1 && value <= 65535 ? value : no(`expected a port number 1–65535, got ${quoted(v)}`);
  });

/**
 * One of `values`, in any case, given as written in `values`; unset → `fallback`.
 * `refusal` is the message for anything else, before `, got "<value>"`.
 */
export function oneOf<const V extends string, const F extends V | undefined>(values: readonly V[], fallback: F, refusal: string): Schema<V | F> {
  return checked((v, no) => {
    if (v === undefined) return fallback;
    return values.find((value) => value.toLowerCase() === v.toLowerCase()) ?? no(`${refusal}, got ${quoted(v)}`);
  });
}

/** An NCRONTAB (6 fields, with seconds); unset → `fallback`. Whether it runs in the time zone is checked across settings. */
export const schedule = (fallback: string): Schema<string> =>
  checked((v, no) => {
    const value = v ?? fallback;
    const problem = scheduleProblem(value);
    return problem ? no(problem) : value;
  });

/** An IANA time zone; unset → `fallback`. */
export const timeZone = (fallback: string): Schema<string> =>
  checked((v, no) => {
    const value = v ?? fallback;
    const problem = timeZoneProblem(value);
    return problem ? no(problem) : value;
  });

/** Service Bus entity names, as the local bus and Service Bus accept them. */
const QUEUE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,258}[A-Za-z0-9])?$/;

/** A queue name; unset → `fallback` (every queue setting needs a queue of its own: checked across them). */
export const queueName = (fallback: string): Schema<string> =>
  checked((v, no) => {
    const value = v ?? fallback;
    if (QUEUE_NAME.test(value)) return value;
    return no(`queue name ${quoted(value)} is invalid: use 1-260 letters, digits, '.', '-', '_' or '/', starting and ending with a letter or digit`);
  });

/** An http(s) URL without credentials (the message never shows the URL); unset stays undefined. */
export const url = (): Schema<string | undefined> =>
  checked((v, no) => {
    if (v === undefined) return undefined;
    const problem = urlCredentialsProblem(v);
    return problem ? no(problem) : v;
  });
