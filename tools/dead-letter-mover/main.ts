#!/usr/bin/env node
import { CommanderError } from 'commander';
import { systemClock } from '../../src/platform/clock';
import { errorMessage } from '../../src/platform/errors';
import { terminalText } from '../../src/platform/terminal-text';
import { exitCodeOf } from '../../src/mover/report';
import { formatReport } from '../../src/mover/report-text';
import { moveMessages, type MoverIo } from './mover';
import { exitAfterOutput } from '../../src/cli/exit-after-output';
import { buildProgram, USAGE_LINE } from './options';

/**
 * The `dead-letter-mover` bin. Exit codes: 0 ok, 1 partial failure (some messages could not be
 * handled, or the run was interrupted), 2 bad arguments (the error, then one usage line).
 */

const processIo = (): MoverIo => ({
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  cwd: process.cwd(),
  clock: systemClock,
  openBus: async (settings) => (await import('../../src/bus/create-bus')).createBus(settings),
});

/** Runs the mover with `argv` (the arguments after the program name); resolves with the exit code. */
export async function runMover(argv: readonly string[], io: Partial<MoverIo> = {}): Promise<number> {
  const given: MoverIo = { ...processIo(), ...io };
  // Every line is made terminal-safe: error texts of parked messages can hold anything.
  const full: MoverIo = { ...given, out: (line) => given.out(terminalText(line)), err: (line) => given.err(terminalText(line)) };
  let exitCode = 0;
  const program = buildProgram(async (options) => {
    const report = await moveMessages(options, full);
    if (options.json) full.out(JSON.stringify(report, null, 2));
    else for (const line of formatReport(report)) full.out(line);
    exitCode = exitCodeOf(report);
  }, full.cwd);
  program.configureOutput({
    writeOut: (text) => full.out(text.replace(/\n$/, '')),
    writeErr: (text) => full.err(text.replace(/\n$/, '')),
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.exitCode === 0 ? 0 : 2;
    const usage = (err as { name?: unknown }).name === 'UsageError';
    full.err(`error: ${errorMessage(err)}`);
    if (usage) full.err(USAGE_LINE);
    return usage ? 2 : 1;
  }
}

/** Ctrl-C or SIGTERM: finish the current batch and release locks; a second one quits at once. */
function interruptController(err: (line: string) => void): AbortController {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(1);
    err(`${signal}: stopping after the current batch and releasing locks (again to quit at once; nothing is lost either way)`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller;
}

if (require.main === module) {
  const controller = interruptController((line) => process.stderr.write(`${line}\n`));
  // exitAfterOutput, not process.exit: a `--json` report piped to a slow reader is written whole.
  runMover(process.argv.slice(2), { signal: controller.signal }).then(
    (code) => exitAfterOutput(code),
    (err: unknown) => {
      process.stderr.write(`error: ${errorMessage(err)}\n`);
      exitAfterOutput(1);
    },
  );
}
