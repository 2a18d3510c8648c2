/*
 * Child process of module-footprint.test.ts (run with src/platform/swc-register.js): plays one
 * scenario and prints, after each stage, one line `FOOTPRINT <json>` naming the npm packages and
 * the project modules in Node's require cache. A process of its own because jest keeps its own
 * module registry, and the test process has loaded everything already.
 *
 *   footprint-child.ts cli
 *   footprint-child.ts connectors <scratch dir>
 *   footprint-child.ts host <config dir> <data dir>     (AzureWebJobsStorage: Azurite)
 *
 * Modules are loaded with `await import()` inside each scenario: a static import would load
 * what another scenario must show absent.
 */
import path from 'node:path';

/** What one stage left loaded. */
export interface Footprint {
  stage: string;
  /** npm package names (`@scope/name` or `name`), sorted. */
  packages: string[];
  /** Project modules outside node_modules, relative to the repository root, without extension. */
  modules: string[];
}

export const FOOTPRINT_PREFIX = 'FOOTPRINT ';

const ROOT = path.resolve(__dirname, '../../../..');

function report(stage: string): void {
  const packages = new Set<string>();
  const modules = new Set<string>();
  for (const file of Object.keys(require.cache)) {
    const pkg = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(file)?.[1];
    if (pkg) packages.add(pkg.replace(/\\/g, '/'));
    else if (file.startsWith(ROOT)) modules.add(path.relative(ROOT, file).replace(/\\/g, '/').replace(/\.[jt]s$/, ''));
  }
  const footprint: Footprint = { stage, packages: [...packages].sort(), modules: [...modules].sort() };
  console.log(FOOTPRINT_PREFIX + JSON.stringify(footprint));
}

async function cli(): Promise<void> {
  await import('../../../../src/cli/main');
  report('cli');
}

async function connectors(scratch: string): Promise<void> {
  const { defaultConnectorRegistry } = await import('../../../../connectors/default-registry');
  const { default: Database } = await import('better-sqlite3');
  const registry = defaultConnectorRegistry();
  const connection = (name: string, type: string, settings: Record<string, unknown>) => ({ name, type, settings, secrets: {}, maxConcurrency: 2 });
  const ctx = (c: ReturnType<typeof connection>) => ({ connection: c, resolveSecret: () => undefined, configDir: scratch });

  // Every type validates (config validation needs all of them) while no implementation is loaded.
  const problems = Object.entries(registry.connectionTypes()).map(([type, validate]) => [type, validate({}, {}).length]);
  console.log(`PROBLEMS ${JSON.stringify(Object.fromEntries(problems))}`);
  report('validated');

  new Database(path.join(scratch, 'crm.db')).close();
  const crm = connection('crm', 'sqlite', { file: 'crm.db' });
  const opened = [registry.createSource(ctx(crm)), registry.createTarget(ctx(crm))];
  report('sqlite opened');

  // Opening makes no request: no token is asked for, so the identity library stays unloaded.
  const service = connection('svc', 'odata', { serviceUrl: 'http://127.0.0.1:9/odata/', auth: { kind: 'managedIdentity' } });
  opened.push(registry.createSource(ctx(service)));
  report('odata opened');
  await Promise.all(opened.map((c) => c.close()));
}

async function host(configDir: string, dataDir: string): Promise<void> {
  const { readSettings } = await import('../../../../src/platform/settings');
  const { startLocalHost } = await import('../../../../src/host/local-host');
  const { silentLogger } = await import('../../../../src/telemetry/logger');
  const settings = { ...readSettings(), dataDir };
  const started = await startLocalHost({ configDir, port: 0, settings, noSchedule: true, log: silentLogger });
  try {
    report('host started');
    const job = started.runtime.init.getJob('crm-accounts-to-erp');
    if (!job) throw new Error('the demo job crm-accounts-to-erp is not configured');
    const run = await started.runtime.detection.runJob(job);
    if (run.outcome !== 'Succeeded') throw new Error(`detection failed: ${run.error}`);
    const deadline = Date.now() + 30_000;
    while (started.stats.processedCount() === 0) {
      if (Date.now() > deadline) throw new Error('no message was processed within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    report('host synced');
  } finally {
    await started.stop();
  }
}

async function main(args: string[]): Promise<void> {
  const [scenario, ...rest] = args;
  if (scenario === 'cli') return cli();
  if (scenario === 'connectors' && rest.length === 1) return connectors(rest[0]);
  if (scenario === 'host' && rest.length === 2) return host(rest[0], rest[1]);
  throw new Error(`usage: footprint-child.ts cli | connectors <scratch dir> | host <config dir> <data dir>; got ${JSON.stringify(args)}`);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    // Exit at once: what the stages measured is printed, and the host's timers must not keep the child alive.
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
