export interface CliOutput {
  /** Lines written with `console.log` (results). */
  stdout: string[];
  /** Lines written with `console.error` and chunks written to `process.stderr` (errors, commander's usage messages). */
  stderr: string[];
  restore(): void;
}

/**
 * Captures what an in-process `runCli` prints, until `restore()`: commander writes its own
 * errors straight to `process.stderr`, the commands use `console`.
 */
export function captureCliOutput(): CliOutput {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void stdout.push(args.map(String).join(' ')));
  const error = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void stderr.push(args.map(String).join(' ')));
  const warn = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void stderr.push(args.map(String).join(' ')));
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  });
  return {
    stdout,
    stderr,
    restore() {
      for (const spy of [log, error, warn, write, out]) spy.mockRestore();
    },
  };
}
