import fs from 'node:fs';
import path from 'node:path';
import { APP_SETTING_LIST, APP_SETTINGS } from '../../../src/platform/app-settings';
import { ROOT, tsFiles } from './infra-files';

/**
 * What the code reads, found in the code itself: the registry's settings the code reads (except
 * the optional tuning knobs, left out of the Bicep and the local example on purpose), every exported
 * `*_SETTING(S)` and `*_TABLE(S)` constant under src/ but the demo's (loaded from its module), and the
 * `%Setting%` and connection names the Functions in functions/ bind to.
 */
export interface CodeFacts {
  /** Setting names read by src/ or bound by functions/. */
  settings: Set<string>;
  /** Connection names of identity-capable connections (`<name>__fullyQualifiedNamespace` …). */
  connections: Set<string>;
  tables: Set<string>;
  /** Files scanned in functions/. */
  functionFiles: string[];
  /** `%Setting%` names bound in functions/ (also in `settings`). */
  functionSettings: Set<string>;
  /** Connection names bound in functions/ (also in `connections`). */
  functionConnections: Set<string>;
  /** `connection:` bindings in functions/ whose name could not be resolved to a string. */
  unresolvedConnections: string[];
}

/** Names of settings and tables; `DEFAULT_…` constants hold default values, not names; `APP_SETTINGS` is the registry, read above. */
const CONSTANT = /^export const (?!DEFAULT_|APP_SETTINGS\b)([A-Z][A-Z0-9_]*_(SETTINGS?|TABLES?))\b/gm;

/** String values of a constant: the string itself, or the strings of a record/array. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).filter((v): v is string => typeof v === 'string');
  return [];
}

/** The demo (`highwater demo`) runs on the local host only: its settings are no app setting of the Function App. */
const DEMO = path.join(ROOT, 'src/demo') + path.sep;

async function exportedConstants(): Promise<{ settings: string[]; tables: string[] }> {
  const found = { settings: [] as string[], tables: [] as string[] };
  for (const file of tsFiles('src').filter((f) => !f.startsWith(DEMO))) {
    const names = [...fs.readFileSync(file, 'utf8').matchAll(CONSTANT)];
    if (names.length === 0) continue;
    const module = (await import(file)) as Record<string, unknown>;
    for (const [, name, kind] of names) {
      const values = stringsOf(module[name]);
      if (values.length === 0) throw new Error(`${path.relative(ROOT, file)}: ${name} holds no string`);
      (kind.startsWith('TABLE') ? found.tables : found.settings).push(...values);
    }
  }
  return found;
}

/** The part before `__` of an identity-based setting such as `ServiceBusConnection__fullyQualifiedNamespace`. */
export const connectionOf = (setting: string): string | undefined => /^(\w+?)__\w+$/.exec(setting)?.[1];

/** Loads the facts (imports the modules that export the constants). */
export async function codeFacts(): Promise<CodeFacts> {
  const exported = await exportedConstants();
  const declared = APP_SETTING_LIST.filter((s) => s.readBy === 'code' && !s.optional).map((s) => s.name);
  const settings = new Set<string>([...declared, ...exported.settings]);
  const connections = new Set<string>([...settings].map(connectionOf).filter((c): c is string => c !== undefined));
  // The code reads AzureWebJobsStorage as a connection string; the Functions host also reads it
  // as a connection, identity-based in Azure (AzureWebJobsStorage__accountName).
  connections.add(APP_SETTINGS.storage.name);
  const functionFiles = tsFiles('functions');
  const functionSettings = new Set<string>();
  const functionConnections = new Set<string>();
  const unresolvedConnections: string[] = [];
  // `connection:` takes a literal or a string constant declared under functions/ or src/platform/.
  const constants = new Map<string, string>();
  for (const file of tsFiles('src/platform')) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/\bconst\s+(\w+)\s*=\s*['"]([^'"]+)['"]/g)) constants.set(m[1], m[2]);
  }
  const uses: { file: string; literal?: string; constant?: string }[] = [];
  for (const file of functionFiles) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/['"`]%(\w+)%['"`]/g)) functionSettings.add(m[1]);
    for (const m of text.matchAll(/\bconst\s+(\w+)\s*=\s*['"]([^'"]+)['"]/g)) constants.set(m[1], m[2]);
    if (!/\bapp\.\w+\(/.test(text)) continue; // only binding registrations name connections
    for (const m of text.matchAll(/\bconnection\s*:\s*(?:['"](\w+)['"]|(\w+))/g)) uses.push({ file: path.relative(ROOT, file), literal: m[1], constant: m[2] });
  }
  for (const use of uses) {
    const name = use.literal ?? constants.get(use.constant ?? '');
    if (name) functionConnections.add(name);
    else unresolvedConnections.push(`${use.file}: connection ${use.constant}`);
  }
  functionSettings.forEach((name) => settings.add(name));
  functionConnections.forEach((name) => connections.add(name));
  return { settings, connections, tables: new Set(exported.tables), functionFiles, functionSettings, functionConnections, unresolvedConnections };
}

/** Files under src/ and functions/ that read `env.NAME` / `env['NAME']` by a literal name, with the names. */
export function literalEnvReads(): { file: string; name: string }[] {
  const reads: { file: string; name: string }[] = [];
  for (const file of [...tsFiles('src'), ...tsFiles('functions')]) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv(?:\.([A-Za-z_]\w*)|\[\s*['"]([^'"]+)['"]\s*\])/g)) {
      reads.push({ file: path.relative(ROOT, file), name: m[1] ?? m[2] });
    }
  }
  return reads;
}

/** Table names passed literally to `.table('…')` under src/ (they should be constants). */
export function literalTableNames(): string[] {
  return tsFiles('src').flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/\.table\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]));
}
