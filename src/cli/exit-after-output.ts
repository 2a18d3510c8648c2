/**
 * Exits once stdout and stderr have handed everything written to the OS. `process.exit` does not
 * wait for a pipe: on Linux writes to a pipe are asynchronous, so `highwater run … --json | wc -c`
 * lost all but the first 64 KiB (the pipe's buffer) when a slow reader had not drained it yet.
 */
export function exitAfterOutput(code: number, streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  let pending = streams.length;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  // Writes complete in order: the callback of an empty write runs after every earlier write.
  // A closed stream (reader gone: EPIPE) calls back with an error; exit anyway.
  for (const stream of streams) {
    if (stream.destroyed || stream.writableEnded) done();
    else stream.write('', () => done());
  }
}
