import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

/** The repository root (children run from there, as `npm` would). */
const REPO_ROOT = path.resolve(__dirname, '../../../..');
const REGISTER = path.join(REPO_ROOT, 'src/platform/swc-register.js');

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A TypeScript script run as a child process (`node -r swc-register`), its output in a log file. */
export class TsChild {
  readonly exited: Promise<ChildExit>;
  private output = '';

  private constructor(private readonly child: ChildProcess, logFile: string) {
    const log = createWriteStream(logFile, { flags: 'a' });
    const collect = (chunk: Buffer) => {
      log.write(chunk);
      // Kept short: only needed until the start line is seen.
      if (this.output.length < 64_000) this.output += chunk.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        // Let the log stream take the last chunks before it is closed.
        setImmediate(() => log.end());
        resolve({ code, signal });
      });
    });
  }

  /** Starts `script` (a path relative to the repository root) with `args` and extra `env`. */
  static start(script: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): TsChild {
    const child = spawn(process.execPath, ['-r', REGISTER, path.join(REPO_ROOT, script), ...args], {
      cwd: REPO_ROOT,
      env: { ...cleanEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new TsChild(child, logFile);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in the output; rejects when the child exits first or after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (!this.running) throw new Error(`child exited before printing ${pattern}:\n${this.output.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`child did not print ${pattern} within ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGKILL, then waits for the exit. */
  async kill(): Promise<ChildExit> {
    if (this.running) this.child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM (a graceful stop), SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<ChildExit> {
    if (!this.running) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The parent's environment without the settings that would point a child at Azure. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['SERVICEBUS_CONNECTION_STRING', 'ServiceBusConnection__fullyQualifiedNamespace', 'APPLICATIONINSIGHTS_CONNECTION_STRING', 'HIGHWATER_TABLES_ENDPOINT']) {
    delete env[name];
  }
  return env;
}
