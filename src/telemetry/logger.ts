/** Structured-enough logging: one line per event; never pass secrets. */
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

function format(level: string, message: string, context?: Record<string, unknown>): string {
  return context && Object.keys(context).length > 0 ? `[${level}] ${message} ${JSON.stringify(context)}` : `[${level}] ${message}`;
}
