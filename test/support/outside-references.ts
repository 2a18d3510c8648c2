import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds references to documents and trackers outside the repository: the project stands alone,
 * so a comment, a test name or a page may cite its own files (`docs/architecture.md, Detection`)
 * but never a design file, a specification or an issue number that a reader of the repository
 * cannot open. Each pattern is written so that its own source text does not match it (a bracket
 * inside the word), which lets this file be scanned like any other.
 */

/** One forbidden kind of reference: a name for the report and the expression that finds it. */
interface OutsideReferencePattern {
  readonly name: string;
  readonly pattern: RegExp;
}

/** A line that cites something outside the repository. */
export interface OutsideReference {
  /** Path relative to the repository root, with forward slashes. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** The line, trimmed and cut to 160 characters. */
  readonly text: string;
  /** Name of the pattern that matched. */
  readonly pattern: string;
}

const OUTSIDE_REFERENCE_PATTERNS: readonly OutsideReferencePattern[] = [
  // The design document the project grew from, by its name in capitals or by a section sign.
  { name: 'outside design document', pattern: /\bARCHITECTUR[E]\b/ },
  { name: 'section number of an outside document', pattern: /[§]\s?\d/ },
  // A tracker number: the word issue followed by a number. Plain "issues" is an ordinary word.
  { name: 'issue number', pattern: /\b[Ii]ssues?\s+#?\d/ },
  // A tracker's item cited by name in parentheses: the word issue opens them, an item number follows.
  { name: 'tracker item', pattern: /\([Ii]ssue\b[^)]*\bitems?\s+\d/ },
  // Specification seeds by their zero-padded number; a random seed of a soak test is not one.
  { name: 'specification seed', pattern: /\b[Ss]eeds?\s+0{2}\d/ },
  { name: 'specification file', pattern: /datenfl(?:ue|ü)ss[e]/i },
  { name: 'shared folder outside the repository', pattern: /(?:\.\.|\/work)\/share[d]\b/ },
  { name: 'outside tooling document', pattern: /\bTOOLIN[G]\.md\b/ },
];

const MAX_TEXT = 160;

/** Every line of `text` that matches a pattern, once per line (the first pattern that matches). */
export function findOutsideReferences(text: string, file: string): OutsideReference[] {
  const found: OutsideReference[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const hit = OUTSIDE_REFERENCE_PATTERNS.find(({ pattern }) => pattern.test(line));
    if (hit) found.push({ file, line: index + 1, text: line.trim().slice(0, MAX_TEXT), pattern: hit.name });
  });
  return found;
}

/** The `file:line: text` form a failing test prints. */
export function formatOutsideReference(reference: OutsideReference): string {
  return `${reference.file}:${reference.line}: ${reference.text}`;
}

// Generated, installed or local-state folders: not the project's own text.
const SKIPPED_FOLDERS = ['node_modules', 'dist', '.deploy', '.git', 'coverage', '.data'];

/**
 * The repository's own text files: what git tracks, plus new files it does not ignore (so a file
 * not yet committed is checked too), without generated folders, deleted files and binary files.
 */
export function repositoryTextFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const files = [...new Set(listed.split('\0').filter((file) => file !== ''))];
  return files
    .filter((file) => !SKIPPED_FOLDERS.includes(file.split('/')[0]!))
    .filter((file) => {
      const full = path.join(root, file);
      return existsSync(full) && statSync(full).isFile() && !readFileSync(full).includes(0);
    })
    .sort();
}

/** Every outside reference in the repository's own text files. */
export function scanRepository(root: string): OutsideReference[] {
  return repositoryTextFiles(root).flatMap((file) => findOutsideReferences(readFileSync(path.join(root, file), 'utf8'), file));
}
