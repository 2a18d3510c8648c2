import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { readTextFile, TextFileError } from '../platform/read-text-file';
import type { ConfigIssue } from '../platform/config-issue';
import { OPTIONAL_CONFIG_KINDS, type ConfigKind } from './schema';

/**
 * Finding and parsing the files of a config folder. Syntax errors name the file and line; their
 * messages are cut to the parser's own words because the parsers quote source text, which could
 * be a secret.
 */

export const CONFIG_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

export type ParsedFile = { ok: true; data: unknown } | { ok: false; issue: ConfigIssue };

/**
 * The file of each kind in `dir`; issues for a missing folder, missing files or duplicates. A
 * kind in `OPTIONAL_CONFIG_KINDS` (pairs) may have no file.
 */
export async function findConfigFiles(
  dir: string,
  kinds: readonly ConfigKind[],
): Promise<{ files: Partial<Record<ConfigKind, string>>; issues: ConfigIssue[] }> {
  const where = dir;
  const info = await stat(dir).catch(() => undefined);
  if (!info) return { files: {}, issues: [{ file: where, path: '', message: 'config folder not found' }] };
  if (!info.isDirectory()) return { files: {}, issues: [{ file: where, path: '', message: 'not a folder' }] };
  const names = new Set(await readdir(dir));
  const files: Partial<Record<ConfigKind, string>> = {};
  const issues: ConfigIssue[] = [];
  for (const kind of kinds) {
    const candidates = CONFIG_EXTENSIONS.map((ext) => `${kind}${ext}`);
    const present = candidates.filter((name) => names.has(name));
    if (present.length === 0) {
      if (OPTIONAL_CONFIG_KINDS.has(kind)) continue;
      issues.push({ file: where, path: '', message: `no ${kind} file (expected one of ${candidates.join(', ')})` });
    } else if (present.length > 1) {
      issues.push({ file: where, path: '', message: `more than one ${kind} file (${present.join(', ')}); keep exactly one` });
    } else {
      files[kind] = present[0];
    }
  }
  return { files, issues };
}

function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, col: lines[lines.length - 1].length + 1 };
}

/** Replaces quoted source text in a parser message, which might be a secret. */
function withoutQuotedText(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, '"…"');
}

function parseJson(file: string, text: string): ParsedFile {
  try {
    return { ok: true, data: JSON.parse(text) as unknown };
  } catch (err) {
    const message = (err as Error).message;
    const positioned = /^(.*?) in JSON at position (\d+)/.exec(message);
    if (positioned) {
      const { line, col } = lineAndColumn(text, Number(positioned[2]));
      return { ok: false, issue: { file, path: '', message: `JSON syntax error at line ${line}, column ${col}: ${withoutQuotedText(positioned[1])}` } };
    }
    if (/end of JSON input/.test(message)) {
      const { line, col } = lineAndColumn(text, text.length);
      return { ok: false, issue: { file, path: '', message: `JSON syntax error at line ${line}, column ${col}: unexpected end of input` } };
    }
    // V8's other form (`Unexpected token 'x', "<source>" is not valid JSON`) quotes the source.
    const token = /^(Unexpected token '.')/.exec(message);
    return { ok: false, issue: { file, path: '', message: `JSON syntax error: ${token ? token[1] : 'invalid JSON'}` } };
  }
}

function parseYaml(file: string, text: string): ParsedFile {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const firstLine = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    const pos = error.linePos?.[0];
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    return { ok: false, issue: { file, path: '', message: `YAML syntax error${where}: ${withoutQuotedText(firstLine)}` } };
  }
  try {
    return { ok: true, data: doc.toJS() as unknown };
  } catch (err) {
    return { ok: false, issue: { file, path: '', message: `YAML error: ${withoutQuotedText((err as Error).message.split('\n')[0])}` } };
  }
}

/** Reads and parses one config file (JSON or YAML by extension). */
export async function readConfigFile(dir: string, file: string): Promise<ParsedFile> {
  let text: string;
  try {
    // Regular files only, time-boxed: a FIFO named jobs.yaml used to hang `config validate`.
    text = await readTextFile(path.join(dir, file));
  } catch (err) {
    return { ok: false, issue: { file, path: '', message: `cannot read: ${err instanceof TextFileError ? err.reason : 'error'}` } };
  }
  return file.endsWith('.json') ? parseJson(file, text) : parseYaml(file, text);
}
