import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AZURITE_DEFAULT_TABLE_PORT } from '../../../src/storage/azurite';
import { arrayItems, assertBalanced, moduleCalls, objectEntries, objectVarNames, outputs, params, resourceBodies, stringLiteral, varLiteral } from './bicep-text';
import { FUNCTION_APP, MAIN, ROOT, bicepFiles, bicepSource, localSettings, mainModuleCall, readRepoFile } from './infra-files';

/**
 * What can be checked of the Bicep without a compiler (`az bicep build --file infra/main.bicep`
 * does the rest where the Bicep CLI exists): structure, module wiring, parameters, outputs,
 * roles, loaded files, and the azd and compose files around it.
 */

/** Built-in roles the templates may grant: data-plane roles only. */
const ALLOWED_ROLES: Record<string, string> = {
  'b7e6dc6d-f1e8-4753-8033-0f276bb0955b': 'Storage Blob Data Owner',
  '974c5e8b-45b9-4653-ba55-5f855dd0fb88': 'Storage Queue Data Contributor',
  '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3': 'Storage Table Data Contributor',
  '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39': 'Azure Service Bus Data Sender',
  '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0': 'Azure Service Bus Data Receiver',
  // Per queue only (the Manage claim for queue runtime properties): checked below.
  '090c5cfd-751d-490a-894a-3ce6f1109419': 'Azure Service Bus Data Owner',
  '4633458b-17de-408a-b874-0445c86b69e6': 'Key Vault Secrets User',
  'b86a8fe4-44ce-4948-aee5-eccb2c155cd7': 'Key Vault Secrets Officer',
};
const WORKBOOK = 'infra/workbook/highwater.workbook.json';
const ROLES = 'infra/modules/role-assignments.bicep';
const SERVICE_BUS = 'infra/modules/service-bus.bicep';

const moduleOf = (modulePath: string) => path.posix.join('infra', modulePath);

/** Role names granted by `var <list>` of a file, resolved through its `roleIds` var. */
function rolesOf(file: string, list: string): string[] {
  const src = bicepSource(file);
  const ids = objectEntries(varLiteral(src, 'roleIds'));
  return arrayItems(varLiteral(src, list)).map((item) => ALLOWED_ROLES[stringLiteral(ids.get(item.replace(/^roleIds\./, '')) ?? '') ?? '']);
}

describe('Bicep structure (checked without the Bicep CLI)', () => {
  it.each(bicepFiles())('%s has balanced brackets', (file) => {
    expect(() => assertBalanced(bicepSource(file))).not.toThrow();
  });

  it('every module exists, declares every parameter it is given, and is given every required one', () => {
    const problems: string[] = [];
    for (const call of moduleCalls(bicepSource(MAIN))) {
      const target = moduleOf(call.path);
      if (!fs.existsSync(path.join(ROOT, target))) {
        problems.push(`${target} does not exist`);
        continue;
      }
      const declared = params(bicepSource(target));
      for (const arg of call.params.keys()) if (!declared.some((p) => p.name === arg)) problems.push(`${target} has no param ${arg}`);
      for (const p of declared) if (p.defaultValue === undefined && !call.params.has(p.name)) problems.push(`${call.symbol} misses ${target} param ${p.name}`);
    }
    expect(problems).toEqual([]);
  });

  it('main.bicep uses only outputs its modules declare', () => {
    const src = bicepSource(MAIN);
    const paths = new Map(moduleCalls(src).map((call) => [call.symbol, moduleOf(call.path)]));
    const missing = [...src.matchAll(/\b(\w+)\.outputs\.(\w+)/g)]
      .filter(([, symbol, output]) => !outputs(bicepSource(paths.get(symbol) ?? MAIN)).some((o) => o.name === output))
      .map(([use]) => use);
    expect(missing).toEqual([]);
  });

  it('main.bicep uses only the resource names it declares', () => {
    const src = bicepSource(MAIN);
    const names = objectEntries(varLiteral(src, 'names'));
    expect([...src.matchAll(/\bnames\.(\w+)/g)].map((m) => m[1]).filter((name) => !names.has(name))).toEqual([]);
  });

  it('the Function App gets exactly the settings of main.bicep and its host settings', () => {
    const [settings, ...more] = resourceBodies(bicepSource(FUNCTION_APP), 'Microsoft.Web/sites/config');
    expect(more).toEqual([]);
    expect(objectEntries(settings).get('properties')).toBe('union(appSettings, hostSettings)');
    const settingVars = objectVarNames(bicepSource(MAIN), /Settings$/);
    const passed = /^union\(([\w\s,]+)\)$/.exec(mainModuleCall(FUNCTION_APP).params.get('appSettings') ?? '')?.[1].split(',').map((v) => v.trim());
    expect(passed?.sort()).toEqual([...settingVars, 'connectorSecretReferences'].sort());
    expect(bicepSource(FUNCTION_APP)).not.toMatch(/appSettings:\s*\[/);
  });

  it('main.parameters.json fills only declared parameters, and every required one', () => {
    const file = JSON.parse(readRepoFile('infra/main.parameters.json')) as { parameters: Record<string, unknown> };
    const declared = params(bicepSource(MAIN));
    const given = Object.keys(file.parameters);
    expect(given.filter((name) => !declared.some((p) => p.name === name))).toEqual([]);
    expect(declared.filter((p) => p.defaultValue === undefined && !given.includes(p.name)).map((p) => p.name)).toEqual([]);
  });

  it('takes no secret as a parameter and puts none in an output', () => {
    for (const file of bicepFiles()) {
      expect([file, /@secure\(\)/.test(bicepSource(file))]).toEqual([file, false]);
      const leaking = outputs(bicepSource(file)).filter((o) => /list\w*\(|ConnectionString|InstrumentationKey|secret|password|key\b/i.test(`${o.name} ${o.expr}`));
      expect([file, leaking]).toEqual([file, []]);
    }
  });

  it('grants only data-plane roles; the app identity gets what the host, Durable Functions and Highwater need', () => {
    for (const file of bicepFiles()) {
      const guids = [...bicepSource(file).matchAll(/'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'/g)].map((m) => m[1]);
      expect([file, guids.filter((id) => !(id in ALLOWED_ROLES))]).toEqual([file, []]);
    }
    expect(rolesOf(ROLES, 'appStorageRoles').sort()).toEqual(['Storage Blob Data Owner', 'Storage Queue Data Contributor', 'Storage Table Data Contributor']);
    expect(rolesOf(ROLES, 'serviceBusRoles').sort()).toEqual(['Azure Service Bus Data Receiver', 'Azure Service Bus Data Sender']);
    expect(rolesOf(ROLES, 'deployerStorageRoles')).toEqual(['Storage Table Data Contributor']);
  });

  it('grants the app Data Owner on each queue it counts (Manage, for scaling and the gauges), never on the namespace', () => {
    const src = bicepSource(ROLES);
    const ids = objectEntries(varLiteral(src, 'roleIds'));
    expect(ALLOWED_ROLES[stringLiteral(ids.get('serviceBusDataOwner') ?? '') ?? '']).toBe('Azure Service Bus Data Owner');
    expect(/^var\s+queueOwnerRole\s*=\s*roleIds\.serviceBusDataOwner\s*$/m.test(src)).toBe(true);
    // Data Owner appears in no role list the namespace-scoped assignments loop over.
    for (const list of ['serviceBusRoles', 'appStorageRoles', 'deployerStorageRoles']) expect(varLiteral(src, list)).not.toMatch(/serviceBusDataOwner/);
    // The queues it is scoped to: existing queues of the namespace, one per counted queue name.
    const [queueRef, ...moreRefs] = resourceBodies(src, 'Microsoft.ServiceBus/namespaces/queues');
    expect(moreRefs).toEqual([]);
    expect(/^resource\s+countedQueues\s+'Microsoft\.ServiceBus\/namespaces\/queues@[^']+'\s+existing\s*=\s*\[\s*for\s+(\w+)\s+in\s+countedQueueNames:/m.test(src)).toBe(true);
    expect(objectEntries(queueRef).get('parent')).toBe('namespace');
    const owners = resourceBodies(src, 'Microsoft.Authorization/roleAssignments').filter((body) => body.includes('queueOwnerRole'));
    expect(owners).toHaveLength(1);
    const owner = objectEntries(owners[0]);
    expect(owner.get('scope')).toBe('countedQueues[i]');
    expect(objectEntries(owner.get('properties') ?? '{}').get('principalId')).toBe('appPrincipalId');
    expect(/^resource\s+appOwnsCountedQueues\s+'Microsoft\.Authorization\/roleAssignments@[^']+'\s*=\s*\[\s*for\s+\(\w+,\s*i\)\s+in\s+countedQueueNames:/m.test(src)).toBe(true);
    // Every queue main.bicep creates (the three work queues among them), once it exists.
    expect(mainModuleCall(ROLES).params.get('countedQueueNames')).toBe('serviceBus.outputs.queueNames');
    expect(outputs(bicepSource(SERVICE_BUS)).find((o) => o.name === 'queueNames')).toEqual({ name: 'queueNames', type: 'string[]', expr: '[for (queueName, i) in queueNames: queues[i].name]' });
    const created = [...objectEntries(varLiteral(bicepSource(MAIN), 'queueSettings')).values()].map((expr) => stringLiteral(expr));
    expect(created).toEqual(expect.arrayContaining(['sbqhigh', 'sbqnormal', 'sbqlow']));
  });

  it('defaults the Function App to Node 22 (Node 20 reached its end of life on 2026-04-30) and passes the choice through', () => {
    for (const file of [MAIN, FUNCTION_APP]) {
      expect([file, params(bicepSource(file)).find((p) => p.name === 'nodeVersion')?.defaultValue]).toEqual([file, "'22'"]);
    }
    expect(mainModuleCall(FUNCTION_APP).params.get('nodeVersion')).toBe('nodeVersion');
    const [site] = resourceBodies(bicepSource(FUNCTION_APP), 'Microsoft.Web/sites');
    const config = objectEntries(objectEntries(objectEntries(site).get('properties') ?? '{}').get('functionAppConfig') ?? '{}');
    expect(objectEntries(config.get('runtime') ?? '{}')).toEqual(new Map([['name', "'node'"], ['version', 'nodeVersion']]));
  });

  it('keeps telemetry 90 days in Log Analytics, as the specification asks', () => {
    const monitoring = 'infra/modules/monitoring.bicep';
    expect(params(bicepSource(monitoring)).find((p) => p.name === 'retentionInDays')?.defaultValue).toBe('90');
    expect(mainModuleCall(monitoring).params.has('retentionInDays')).toBe(false);
    const [workspace] = resourceBodies(bicepSource(monitoring), 'Microsoft.OperationalInsights/workspaces');
    expect(objectEntries(objectEntries(workspace).get('properties') ?? '{}').get('retentionInDays')).toBe('retentionInDays');
  });

  it('loads the workbook from infra/workbook and every other loaded file exists', () => {
    const loads = bicepFiles().flatMap((file) =>
      [...bicepSource(file).matchAll(/load(?:Text|Json)Content\('([^']+)'\)/g)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]))),
    );
    expect(loads).toContain(WORKBOOK);
    if (fs.existsSync(path.join(ROOT, WORKBOOK))) {
      expect(() => JSON.parse(readRepoFile(WORKBOOK)) as unknown).not.toThrow();
    } else {
      console.log(`${WORKBOOK} does not exist yet: only its reference is checked`);
    }
    expect(loads.filter((file) => file !== WORKBOOK && !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
  });
});

describe('azd and local emulator files', () => {
  it('azure.yaml deploys this folder as the function service the Function App is tagged with', () => {
    const azure = parseYaml(readRepoFile('azure.yaml')) as { infra: { path: string; module: string }; services: Record<string, { project: string; host: string; language: string }> };
    const tag = /'azd-service-name':\s*'([^']+)'/.exec(bicepSource(FUNCTION_APP))?.[1] ?? '';
    expect(`${azure.infra.path}/${azure.infra.module}.bicep`).toBe(MAIN);
    expect(azure.services[tag]).toMatchObject({ project: '.', host: 'function', language: 'ts' });
  });

  it('azure.yaml deploys the lean package as it is: .deploy/, written by the package script before azd zips it', () => {
    type Hook = { shell: string; run: string };
    const azure = parseYaml(readRepoFile('azure.yaml')) as { services: Record<string, { dist?: string; remoteBuild?: boolean; hooks?: { prepackage?: { posix?: Hook; windows?: Hook } } }> };
    const [service] = Object.values(azure.services);
    expect(service).toMatchObject({ dist: '.deploy', remoteBuild: false });
    expect(service.hooks?.prepackage?.posix).toEqual({ shell: 'sh', run: 'npm run package:functions' });
    expect(service.hooks?.prepackage?.windows).toEqual({ shell: 'pwsh', run: 'npm run package:functions' });
    const scripts = (JSON.parse(readRepoFile('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['package:functions']).toBe('npm run build && node dist/tools/functions-package/main.js');
    expect(fs.existsSync(path.join(ROOT, 'tools/functions-package/main.ts'))).toBe(true);
    // azd refuses remoteBuild: false when the project's .funcignore excludes node_modules; without
    // one it zips the package folder with its node_modules (azure-dev: service_target_functionapp.go,
    // project_utils.go).
    expect(fs.existsSync(path.join(ROOT, '.funcignore'))).toBe(false);
    expect(readRepoFile('.gitignore').split('\n')).toContain('.deploy/');
  });

  it('compose runs Azurite on the ports the code and func start use, and the emulator with Config.json', () => {
    type Service = { image: string; ports?: string[]; volumes?: string[]; environment?: Record<string, string>; depends_on?: string[] };
    const compose = parseYaml(readRepoFile('infra/local/compose.yaml')) as { services: Record<string, Service> };
    const services = Object.values(compose.services);
    const azurite = services.find((s) => s.image.startsWith('mcr.microsoft.com/azure-storage/azurite:'));
    expect(azurite?.ports).toEqual(expect.arrayContaining(['10000:10000', '10001:10001', `${AZURITE_DEFAULT_TABLE_PORT}:${AZURITE_DEFAULT_TABLE_PORT}`]));
    const emulator = services.find((s) => s.image.startsWith('mcr.microsoft.com/azure-messaging/servicebus-emulator:'));
    expect(emulator?.volumes).toContain('./Config.json:/ServiceBus_Emulator/ConfigFiles/Config.json:ro');
    expect(emulator?.depends_on).toEqual([emulator?.environment?.SQL_SERVER]);
    const endpoint = /Endpoint=sb:\/\/localhost(?::(\d+))?;/.exec(localSettings().ServiceBusConnection)?.[1] ?? '5672';
    expect(emulator?.ports).toContain(`${endpoint}:5672`);
  });
});
