import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reads a text file that a person named (a config file, the mover's rules), refusing what is
 * not a regular file and bounding the time. A FIFO used to hang `config validate` (and the
 * mover ignored SIGTERM for minutes, a thread pool thread stuck in open); a device or /proc file
 * can stream without end.
 */

/** Largest file read, in bytes (config and rules files are kilobytes). */
const MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024;
/** How long a read may take, in ms (a stalled network share). */
const TEXT_FILE_TIMEOUT_MS = 10_000;

/** Why a file could not be read, in a few words: `no such file`, `not a regular file (a FIFO)`, … */
export class TextFileError extends Error {
  override readonly name = 'TextFileError';
  constructor(readonly reason: string, readonly code?: string) {
    super(reason);
  }
}

const KINDS: Array<[string, (s: import('node:fs').Stats) => boolean]> = [
  ['a folder', (s) => s.isDirectory()],
  ['a FIFO', (s) => s.isFIFO()],
  ['a socket', (s) => s.isSocket()],
  ['a character device', (s) => s.isCharacterDevice()],
  ['a block device', (s) => s.isBlockDevice()],
];

function reasonOf(err: unknown): TextFileError {
  if (err instanceof TextFileError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new TextFileError('no such file', code);
  if (code === 'EACCES' || code === 'EPERM') return new TextFileError('permission denied', code);
  if (code === 'ABORT_ERR') return new TextFileError(`no answer within ${TEXT_FILE_TIMEOUT_MS / 1000} s`, code);
  return new TextFileError(code ?? String((err as Error)?.message ?? err), code);
}

/**
 * The file's text (UTF-8). Opened without blocking (O_NONBLOCK: opening a FIFO waits for a
 * writer otherwise), then checked to be a regular file of at most `maxBytes`.
 * @throws TextFileError saying why.
 */
export async function readTextFile(file: string, options: { maxBytes?: number; timeoutMs?: number } = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? MAX_TEXT_FILE_BYTES;
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw reasonOf(err);
  }
  try {
    const info = await handle.stat();
    const kind = KINDS.find(([, test]) => test(info))?.[0];
    if (kind || !info.isFile()) throw new TextFileError(`not a regular file (${kind ?? 'another kind of file'})`);
    if (info.size > maxBytes) throw new TextFileError(`too large (${info.size} bytes; at most ${maxBytes})`);
    return await handle.readFile({ encoding: 'utf8', signal: AbortSignal.timeout(options.timeoutMs ?? TEXT_FILE_TIMEOUT_MS) });
  } catch (err) {
    throw reasonOf(err);
  } finally {
    await handle.close();
  }
}
