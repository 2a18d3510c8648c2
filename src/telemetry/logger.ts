import { systemClock, type Clock } from '../platform/clock';
import { terminalText } from '../platform/terminal-text';
import { scrubContext, scrubMessage } from './log-scrub';

/**
 * Structured-enough logging: one line per event. Never pass secrets; the adapters scrub what
 * slips through all the same (`log-scrub.ts`).
 */
export interface Logger {
  info(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

/** Writes to the console with a level prefix (the Functions host captures console output). */
export const consoleLogger: Logger = {
  info: (m, c) => console.log(format('info', m, c)),
  warn: (m, c) => console.warn(format('warn', m, c)),
  error: (m, c) => console.error(format('error', m, c)),
};

/** Discards everything (tests, quiet CLI runs). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * One console entry. Messages carry source values and error texts from services: control
 * characters are shown as escapes (`terminalText`), and every line after the first is indented,
 * so a value holding `\n[error] …` cannot pass for an entry of its own.
 */
function format(level: string, raw: string, rawContext?: Record<string, unknown>): string {
  const message = scrubMessage(raw);
  const context = scrubContext(rawContext);
  const line = context && Object.keys(context).length > 0 ? `[${level}] ${message} ${JSON.stringify(context)}` : `[${level}] ${message}`;
  return terminalText(line).replace(/\n/g, '\n    ');
}

/**
 * A logger that adds `context` to every line, e.g. `{ correlationId, job }` for the life of one
 * message, so its lines can be found together from detection to target. Per-call context wins.
 */
export function withContext(log: Logger, context: Record<string, unknown>): Logger {
  const merge = (c?: Record<string, unknown>) => ({ ...context, ...c });
  return {
    info: (m, c) => log.info(m, merge(c)),
    warn: (m, c) => log.warn(m, merge(c)),
    error: (m, c) => log.error(m, merge(c)),
  };
}

/**
 * One JSON object per line: `{"at":"…","level":"info","message":"…",…context}`, for log
 * collectors that parse structured lines. Context keys named `at`, `level` or `message` are
 * prefixed with `ctx.` so they cannot overwrite the line's own fields.
 */
export function jsonLinesLogger(write: (line: string) => void = (line) => process.stdout.write(line + '\n'), clock: Pick<Clock, 'now'> = systemClock): Logger {
  const line = (level: string) => (message: string, context?: Record<string, unknown>) => {
    const fields: Record<string, unknown> = { at: clock.now().toISOString(), level, message: scrubMessage(message) };
    for (const [key, value] of Object.entries(scrubContext(context) ?? {})) fields[key in fields ? `ctx.${key}` : key] = value;
    write(JSON.stringify(fields));
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}
