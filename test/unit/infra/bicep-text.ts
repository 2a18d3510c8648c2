/**
 * Just enough reading of Bicep source to check infra against the code where no Bicep compiler
 * exists (`az bicep build --file infra/main.bicep` compiles it where one does): comments,
 * strings, `var` objects and arrays, `param`, `output`, `module` calls and resource bodies.
 */

/** Replaces `//` and `/* *\/` comments with spaces (newlines kept), leaving strings intact. */
export function stripComments(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    if (src.startsWith("'''", i)) {
      const end = src.indexOf("'''", i + 3);
      const stop = end < 0 ? src.length : end + 3;
      out += src.slice(i, stop);
      i = stop;
    } else if (src[i] === "'") {
      const stop = stringEnd(src, i);
      out += src.slice(i, stop);
      i = stop;
    } else if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += src[i];
      i += 1;
    }
  }
  return out;
}

/** Index just past the single-quoted string starting at `start` (`\'` escapes a quote). */
function stringEnd(src: string, start: number): number {
  let i = start + 1;
  while (i < src.length && src[i] !== "'") i += src[i] === '\\' ? 2 : 1;
  return i + 1;
}

const CLOSER: Record<string, string> = { '{': '}', '[': ']', '(': ')' };

/** Index of the bracket closing the one at `open` (comments already stripped). */
function matching(src: string, open: number): number {
  const stack: string[] = [];
  for (let i = open; i < src.length; i += 1) {
    const c = src[i];
    if (c === "'") {
      i = (src.startsWith("'''", i) ? src.indexOf("'''", i + 3) + 2 : stringEnd(src, i) - 1);
    } else if (c in CLOSER) {
      stack.push(CLOSER[c]);
    } else if (c === '}' || c === ']' || c === ')') {
      if (stack.pop() !== c) throw new Error(`unbalanced '${c}' at offset ${i}`);
      if (stack.length === 0) return i;
    }
  }
  throw new Error(`bracket at offset ${open} is never closed`);
}

/** Checks that brackets pair up across a whole file; throws naming the first offset that does not. */
export function assertBalanced(src: string): void {
  for (let i = 0; i < src.length; i += 1) {
    const c = src[i];
    if (c === "'") i = (src.startsWith("'''", i) ? src.indexOf("'''", i + 3) + 2 : stringEnd(src, i) - 1);
    else if (c in CLOSER) i = matching(src, i);
    else if (c === '}' || c === ']' || c === ')') throw new Error(`stray '${c}' at offset ${i}`);
  }
}

/** Splits the inside of an object or array into its entries (newline- or comma-separated). */
function topLevelItems(body: string): string[] {
  const items: string[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i];
    if (c === "'") i = stringEnd(body, i) - 1;
    else if (c in CLOSER) i = matching(body, i);
    else if (c === '\n' || c === ',') {
      items.push(body.slice(start, i));
      start = i + 1;
    }
  }
  items.push(body.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '' && !item.startsWith('@'));
}

/** Entries of an object literal `{ … }` given its text: key → value expression. */
export function objectEntries(objectText: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const item of topLevelItems(objectText.trim().slice(1, -1))) {
    const m = /^('(?:[^'\\]|\\.)*'|[A-Za-z_$][\w$]*)\s*:\s*([\s\S]+)$/.exec(item);
    if (!m) throw new Error(`not an object entry: ${item}`);
    entries.set(m[1].startsWith("'") ? m[1].slice(1, -1) : m[1], m[2].trim());
  }
  return entries;
}

/** Items of an array literal `[ … ]` given its text. */
export function arrayItems(arrayText: string): string[] {
  return topLevelItems(arrayText.trim().slice(1, -1));
}

/** The bracketed text that starts at the first `{` or `[` found from `from` on. */
function bracketedFrom(src: string, from: number, brackets = '{['): string {
  let i = from;
  while (i < src.length && !brackets.includes(src[i])) i += src[i] === "'" ? stringEnd(src, i) - i : 1;
  if (i >= src.length) throw new Error(`no ${brackets} after offset ${from}`);
  return src.slice(i, matching(src, i) + 1);
}

/** The literal value text of `var <name> = …` (an object or array literal). */
export function varLiteral(src: string, name: string): string {
  const m = new RegExp(`^var\\s+${name}\\s*=\\s*(?=[[{])`, 'm').exec(src);
  if (!m) throw new Error(`no literal var ${name}`);
  return bracketedFrom(src, m.index + m[0].length);
}

/** Names of every `var` whose value is an object literal and whose name matches `pattern`. */
export function objectVarNames(src: string, pattern: RegExp): string[] {
  return [...src.matchAll(/^var\s+(\w+)\s*=\s*\{/gm)].map((m) => m[1]).filter((name) => pattern.test(name));
}

/** The value of a plain string literal (no interpolation), else undefined. */
export function stringLiteral(expr: string): string | undefined {
  const m = /^'((?:[^'\\$]|\\.|\$(?!\{))*)'$/.exec(expr.trim());
  return m ? m[1].replace(/\\(.)/g, '$1') : undefined;
}

export interface BicepParam {
  name: string;
  type: string;
  /** The default value expression, if any. */
  defaultValue?: string;
}

export function params(src: string): BicepParam[] {
  return [...src.matchAll(/^param\s+(\w+)\s+([\w.[\]]+)(?:\s*=\s*(.+))?$/gm)].map((m) => ({
    name: m[1],
    type: m[2],
    defaultValue: m[3]?.trim(),
  }));
}

export interface BicepOutput {
  name: string;
  type: string;
  expr: string;
}

export function outputs(src: string): BicepOutput[] {
  return [...src.matchAll(/^output\s+(\w+)\s+([\w.[\]]+)\s*=\s*(.+)$/gm)].map((m) => ({ name: m[1], type: m[2], expr: m[3].trim() }));
}

export interface BicepModuleCall {
  symbol: string;
  path: string;
  /** Arguments: parameter name → expression. */
  params: Map<string, string>;
}

export function moduleCalls(src: string): BicepModuleCall[] {
  return [...src.matchAll(/^module\s+(\w+)\s+'([^']+)'\s*=/gm)].map((m) => {
    const body = objectEntries(bracketedFrom(src, m.index + m[0].length, '{'));
    const args = body.get('params');
    return { symbol: m[1], path: m[2], params: args ? objectEntries(args) : new Map<string, string>() };
  });
}

/** Bodies (object literal text) of the resources of a type, e.g. `Microsoft.ServiceBus/namespaces/queues`. */
export function resourceBodies(src: string, type: string): string[] {
  const re = new RegExp(`^resource\\s+\\w+\\s+'${type.replace(/[./]/g, '\\$&')}@[^']+'\\s*(?:existing\\s*)?=`, 'gm');
  return [...src.matchAll(re)].map((m) => {
    const head = src.slice(m.index + m[0].length);
    const loop = /^\s*\[\s*for\s[^:]+:/.exec(head);
    return bracketedFrom(src, m.index + m[0].length + (loop ? loop[0].length : 0), '{');
  });
}

/** ISO 8601 duration (days and time parts, as Azure queues use) in milliseconds. */
export function isoDurationMs(iso: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(iso);
  if (!m || iso === 'P' || iso.endsWith('T')) throw new Error(`unsupported ISO 8601 duration: ${iso}`);
  const [days, hours, minutes, seconds] = m.slice(1).map((part) => Number(part ?? 0));
  return (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
}
