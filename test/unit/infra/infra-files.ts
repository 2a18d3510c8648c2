import fs from 'node:fs';
import path from 'node:path';
import { moduleCalls, objectEntries, objectVarNames, stringLiteral, stripComments, varLiteral, type BicepModuleCall } from './bicep-text';

/** Repository root. */
export const ROOT = path.resolve(__dirname, '../../..');

export const readRepoFile = (relative: string): string => fs.readFileSync(path.join(ROOT, relative), 'utf8');

/** `.ts` files under a repository folder (recursively); none when it does not exist. */
export function tsFiles(relativeDir: string): string[] {
  const dir = path.join(ROOT, relativeDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(dir, file))
    .sort();
}

/** Every `.bicep` file under infra/, as repository-relative paths. */
export function bicepFiles(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'infra'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.bicep'))
    .map((file) => path.posix.join('infra', file.split(path.sep).join('/')))
    .sort();
}

/** A Bicep file with comments stripped. */
export const bicepSource = (relative: string): string => stripComments(readRepoFile(relative));

export const MAIN = 'infra/main.bicep';
export const FUNCTION_APP = 'infra/modules/function-app.bicep';

/** The call of a module in main.bicep, by the module's path. */
export function mainModuleCall(modulePath: string): BicepModuleCall {
  const call = moduleCalls(bicepSource(MAIN)).find((m) => path.posix.join('infra', m.path) === modulePath);
  if (!call) throw new Error(`${MAIN} does not call ${modulePath}`);
  return call;
}

/** One app setting of the Function App as declared in Bicep. */
export interface DeclaredSetting {
  /** File and `var` that declare it. */
  declaredIn: string;
  /** Its value expression, with a module parameter replaced by what main.bicep passes. */
  expr: string;
  /** Its value when a plain string literal. */
  literal?: string;
}

/**
 * The app settings declared in Bicep: the entries of every object `var` named `*Settings` in
 * main.bicep and modules/function-app.bicep (the convention main.bicep documents).
 */
export function bicepAppSettings(): Map<string, DeclaredSetting> {
  const settings = new Map<string, DeclaredSetting>();
  const moduleArgs = mainModuleCall(FUNCTION_APP).params;
  for (const file of [MAIN, FUNCTION_APP]) {
    const src = bicepSource(file);
    for (const name of objectVarNames(src, /Settings$/)) {
      for (const [key, value] of objectEntries(varLiteral(src, name))) {
        if (settings.has(key)) throw new Error(`app setting ${key} is declared twice (${settings.get(key)?.declaredIn}, ${file} ${name})`);
        const expr = file === FUNCTION_APP && /^\w+$/.test(value) && moduleArgs.has(value) ? (moduleArgs.get(value) as string) : value;
        settings.set(key, { declaredIn: `${file} var ${name}`, expr, literal: stringLiteral(expr) });
      }
    }
  }
  return settings;
}

/** `Values` of local.settings.example.json. */
export function localSettings(): Record<string, string> {
  const parsed = JSON.parse(readRepoFile('local.settings.example.json')) as { Values?: Record<string, string> };
  if (!parsed.Values) throw new Error('local.settings.example.json has no Values');
  return parsed.Values;
}

/** The queues of infra/local/Config.json (the Service Bus emulator's only namespace). */
export interface EmulatorQueue {
  Name: string;
  Properties: Record<string, string | number | boolean>;
}

export function emulatorQueues(): EmulatorQueue[] {
  const config = JSON.parse(readRepoFile('infra/local/Config.json')) as { UserConfig: { Namespaces: { Name: string; Queues: EmulatorQueue[] }[] } };
  const namespaces = config.UserConfig.Namespaces;
  if (namespaces.length !== 1 || namespaces[0].Name !== 'sbemulatorns') throw new Error('the emulator takes exactly one namespace, sbemulatorns');
  return namespaces[0].Queues;
}
