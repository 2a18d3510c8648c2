import { DEFAULT_QUEUE_OPTIONS } from '../../../src/bus/local/options';
import { MESSAGE_TIME_TO_LIVE_MS } from '../../../src/bus/message-properties';
import { CONFIG_TABLES } from '../../../src/config/config-store';
import { TRIGGER_CONNECTION_SETTING, readSettings } from '../../../src/platform/settings';
import { APP_SETTINGS } from '../../../src/platform/app-settings';
import { RUNS_TABLE } from '../../../src/detect/run-log-store';
import { WATERMARK_TABLE } from '../../../src/model/watermark-record';
import { APPLIED_HASHES_TABLE } from '../../../src/process/applied-hash-store';
import { arrayItems, isoDurationMs, objectEntries, params, resourceBodies, stringLiteral, varLiteral } from './bicep-text';
import { codeFacts, connectionOf, literalEnvReads, literalTableNames, type CodeFacts } from './code-facts';
import { MAIN, ROOT, bicepAppSettings, bicepSource, emulatorQueues, localSettings, mainModuleCall, type DeclaredSetting } from './infra-files';
import { DEFAULT_QUEUES, allQueueNames } from '../../../src/platform/queue-topology';

/** Read by the platform or an SDK rather than by Highwater's code, and why each is declared. */
const PLATFORM_SETTINGS = {
  azure: { AZURE_CLIENT_ID: 'DefaultAzureCredential (src/storage, src/bus) picks the user-assigned identity by it' },
  local: { FUNCTIONS_WORKER_RUNTIME: 'func start needs it; the Flex plan takes the runtime from functionAppConfig' },
};
/**
 * Read by the code, left out of local.settings.example.json on purpose: an override that, unset,
 * falls back to a setting the file declares.
 */
const LOCAL_OVERRIDES = {
  [APP_SETTINGS.serviceBus.name]: `unset, the code reads the triggers' ${TRIGGER_CONNECTION_SETTING}: one broker under one name`,
};
/** Parts of an identity-based connection `<connection>__<part>` (Functions host and extensions). */
const IDENTITY_PARTS = ['fullyQualifiedNamespace', 'accountName', 'credential', 'clientId'];
/** Upper limits of the Service Bus emulator's Config.json (its published schema). */
const EMULATOR_MAX_MS = { DefaultMessageTimeToLive: isoDurationMs('PT1H'), DuplicateDetectionHistoryTimeWindow: isoDurationMs('PT5M') };

const sorted = (values: Iterable<string>) => [...values].sort();
const minus = (values: Iterable<string>, ...removed: Iterable<string>[]) => {
  const drop = new Set(removed.flatMap((r) => [...r]));
  return sorted([...values].filter((v) => !drop.has(v)));
};

let facts: CodeFacts;
let bicep: Map<string, DeclaredSetting>;
let local: Record<string, string>;
/** Connection strings: local only. */
let connectionStrings: string[];
/** Identity endpoints: Azure only. */
let identityEndpoints: string[];

beforeAll(async () => {
  facts = await codeFacts();
  bicep = bicepAppSettings();
  local = localSettings();
  connectionStrings = [APP_SETTINGS.serviceBus.name, ...facts.connections];
  identityEndpoints = [APP_SETTINGS.tablesEndpoint.name, ...[...facts.settings].filter((s) => connectionOf(s) !== undefined)];
});

describe('app settings: code, Bicep and local.settings.example.json agree', () => {
  it('finds what the code reads in the code itself', () => {
    expect([...facts.settings]).toEqual(expect.arrayContaining(Object.values(APP_SETTINGS).filter((s) => s.readBy === 'code' && !s.optional).map((s) => s.name)));
    expect([...facts.tables]).toEqual(expect.arrayContaining([...Object.values(CONFIG_TABLES), WATERMARK_TABLE, RUNS_TABLE, APPLIED_HASHES_TABLE]));
    expect([...facts.connections]).toEqual(expect.arrayContaining([APP_SETTINGS.storage.name, connectionOf(APP_SETTINGS.serviceBusNamespace.name)]));
  });

  it('the Function App declares every setting the code reads, except connection strings', () => {
    expect(minus(facts.settings, connectionStrings, bicep.keys())).toEqual([]);
  });

  it('the Function App sets no connection string: each connection is identity-based, with the app identity', () => {
    expect(sorted(connectionStrings.filter((s) => bicep.has(s)))).toEqual([]);
    const appIdentity = bicep.get('AZURE_CLIENT_ID')?.expr;
    expect(appIdentity).toBe('identity.outputs.clientId');
    for (const connection of facts.connections) {
      const endpoint = ['fullyQualifiedNamespace', 'accountName'].find((part) => bicep.has(`${connection}__${part}`));
      expect([connection, endpoint !== undefined]).toEqual([connection, true]);
      expect([connection, bicep.get(`${connection}__credential`)?.literal]).toEqual([connection, 'managedidentity']);
      expect([connection, bicep.get(`${connection}__clientId`)?.expr]).toEqual([connection, appIdentity]);
    }
  });

  it('the Function App declares nothing that neither the code, the Functions host nor an SDK reads', () => {
    const identityParts = [...facts.connections].flatMap((c) => IDENTITY_PARTS.map((part) => `${c}__${part}`));
    expect(minus(bicep.keys(), facts.settings, identityParts, Object.keys(PLATFORM_SETTINGS.azure))).toEqual([]);
  });

  it('local.settings.example.json declares every setting the code reads and every connection, except identity endpoints and overrides', () => {
    expect(minus([...facts.settings, ...facts.connections], identityEndpoints, Object.keys(LOCAL_OVERRIDES), Object.keys(local))).toEqual([]);
  });

  it('local.settings.example.json names the Service Bus connection once, under the triggers\u2019 name, and the code reads that one', () => {
    const serviceBusStrings = Object.entries(local).filter(([, value]) => /^Endpoint=sb:\/\//i.test(value));
    expect(serviceBusStrings.map(([name]) => name)).toEqual([TRIGGER_CONNECTION_SETTING]);
    expect(readSettings({ ...local }, ROOT).serviceBusConnectionString).toBe(local[TRIGGER_CONNECTION_SETTING]);
  });

  it('local.settings.example.json declares nothing that neither the code nor func start reads', () => {
    expect(minus(Object.keys(local), facts.settings, facts.connections, Object.keys(PLATFORM_SETTINGS.local))).toEqual([]);
  });

  it('local.settings.example.json holds no secret: only the emulators\u2019 published development credentials', () => {
    const withKeys = Object.entries(local).filter(([, value]) => /AccountKey=|SharedAccessKey=|SharedAccessSignature=|InstrumentationKey=/i.test(value));
    for (const [name, value] of withKeys) {
      expect([name, /UseDevelopmentEmulator=true/.test(value), /SharedAccessKey=SAS_KEY_VALUE;/.test(value)]).toEqual([name, true, true]);
    }
    expect(local[APP_SETTINGS.storage.name]).toBe('UseDevelopmentStorage=true');
  });

  it('the code reads no setting by a literal name that is not declared', () => {
    const known = new Set([...facts.settings, ...Object.keys(PLATFORM_SETTINGS.azure)]);
    expect(literalEnvReads().filter((read) => !known.has(read.name))).toEqual([]);
  });

  it('functions/ binds only settings and connections both sides declare', () => {
    if (facts.functionFiles.length === 0) console.log('functions/ has no .ts files yet: only the settings of src/ are checked');
    expect(minus(facts.functionSettings, bicep.keys())).toEqual([]);
    expect(minus(facts.functionSettings, Object.keys(local))).toEqual([]);
    expect(minus(facts.functionConnections, Object.keys(local))).toEqual([]);
    const identityBased = (c: string) => bicep.has(`${c}__fullyQualifiedNamespace`) || bicep.has(`${c}__accountName`);
    expect(sorted(facts.functionConnections).filter((c) => !identityBased(c))).toEqual([]);
    expect(facts.unresolvedConnections).toEqual([]);
  });

  it('the GetChanges timer defaults to the code\u2019s schedule in Azure and locally', () => {
    const schedule = bicep.get(APP_SETTINGS.getChangesSchedule.name)?.expr ?? '';
    const param = params(bicepSource(MAIN)).find((p) => p.name === schedule);
    const codeDefault = readSettings({}, ROOT).getChangesSchedule;
    expect([stringLiteral(param?.defaultValue ?? ''), local[APP_SETTINGS.getChangesSchedule.name]]).toEqual([codeDefault, codeDefault]);
  });
});

describe('queues: Bicep, the emulator config and the code agree', () => {
  const queueSettingKeys = Object.values(APP_SETTINGS).filter((s) => s.section === 'queues').map((s): string => s.name);
  const envOf = (entries: [string, string | undefined][]) => Object.fromEntries(entries.filter(([name]) => queueSettingKeys.includes(name)));

  it('the queue settings name the code\u2019s default queues, in Azure and locally', () => {
    const azureEnv = envOf([...bicep].map(([name, setting]) => [name, setting.literal]));
    expect(sorted(Object.keys(azureEnv))).toEqual(sorted(queueSettingKeys));
    expect(readSettings(azureEnv, ROOT).queues).toEqual(DEFAULT_QUEUES);
    expect(readSettings(envOf(Object.entries(local)), ROOT).queues).toEqual(DEFAULT_QUEUES);
  });

  it('Service Bus gets exactly the queues the settings name', () => {
    expect(mainModuleCall('infra/modules/service-bus.bicep').params.get('queueNames')).toBe('map(items(queueSettings), queue => queue.value)');
    expect(bicepSource('infra/modules/service-bus.bicep')).toMatch(/\[\s*for (\w+) in queueNames:\s*\{\s*parent: namespace\s*name: \1\b/);
    const created = [...objectEntries(varLiteral(bicepSource(MAIN), 'queueSettings')).values()].map((expr) => stringLiteral(expr));
    expect(sorted(created as string[])).toEqual(sorted(allQueueNames(DEFAULT_QUEUES)));
  });

  it('every Azure queue has the local bus\u2019s queue defaults (docs/architecture.md, Queues)', () => {
    const [body, ...more] = resourceBodies(bicepSource('infra/modules/service-bus.bicep'), 'Microsoft.ServiceBus/namespaces/queues');
    expect(more).toEqual([]);
    const p = objectEntries(objectEntries(body).get('properties') ?? '{}');
    const duration = (name: string) => isoDurationMs(stringLiteral(p.get(name) ?? '') ?? '');
    expect({
      lockDurationMs: duration('lockDuration'),
      maxDeliveryCount: Number(p.get('maxDeliveryCount')),
      defaultTimeToLiveMs: duration('defaultMessageTimeToLive'),
      deadLetteringOnMessageExpiration: p.get('deadLetteringOnMessageExpiration') === 'true',
      requiresDuplicateDetection: p.get('requiresDuplicateDetection') === 'true',
      duplicateDetectionWindowMs: duration('duplicateDetectionHistoryTimeWindow'),
    }).toEqual({ ...DEFAULT_QUEUE_OPTIONS, maxMessageSizeBytes: undefined, defaultTimeToLiveMs: MESSAGE_TIME_TO_LIVE_MS });
    expect([p.get('requiresSession'), p.get('enablePartitioning')]).toEqual(['false', 'false']);
  });

  it('the emulator config lists the same queues with the same properties, capped at the emulator\u2019s limits', () => {
    const q = DEFAULT_QUEUE_OPTIONS;
    const capped = (ms: number, max: number) => Math.min(ms, max);
    const expected = {
      LockDuration: q.lockDurationMs,
      MaxDeliveryCount: q.maxDeliveryCount,
      DefaultMessageTimeToLive: capped(MESSAGE_TIME_TO_LIVE_MS, EMULATOR_MAX_MS.DefaultMessageTimeToLive),
      DuplicateDetectionHistoryTimeWindow: capped(q.duplicateDetectionWindowMs, EMULATOR_MAX_MS.DuplicateDetectionHistoryTimeWindow),
      RequiresDuplicateDetection: q.requiresDuplicateDetection,
      DeadLetteringOnMessageExpiration: q.deadLetteringOnMessageExpiration,
      RequiresSession: false,
    };
    const queues = emulatorQueues();
    expect(sorted(queues.map((queue) => queue.Name))).toEqual(sorted(allQueueNames(DEFAULT_QUEUES)));
    for (const { Name, Properties: p } of queues) {
      const ms = (value: unknown) => isoDurationMs(String(value));
      expect({
        Name,
        LockDuration: ms(p.LockDuration),
        MaxDeliveryCount: p.MaxDeliveryCount,
        DefaultMessageTimeToLive: ms(p.DefaultMessageTimeToLive),
        DuplicateDetectionHistoryTimeWindow: ms(p.DuplicateDetectionHistoryTimeWindow),
        RequiresDuplicateDetection: p.RequiresDuplicateDetection,
        DeadLetteringOnMessageExpiration: p.DeadLetteringOnMessageExpiration,
        RequiresSession: p.RequiresSession,
      }).toEqual({ Name, ...expected });
    }
  });
});

describe('tables: Bicep and the code agree', () => {
  it('the storage account declares exactly the tables the code uses', () => {
    const declared = arrayItems(varLiteral(bicepSource(MAIN), 'tableNames')).map((item) => stringLiteral(item));
    expect(sorted(declared as string[])).toEqual(sorted(facts.tables));
    expect(mainModuleCall('infra/modules/storage.bicep').params.get('tableNames')).toBe('tableNames');
  });

  it('the code names its tables by those constants, not by literals', () => {
    expect(literalTableNames().filter((name) => !facts.tables.has(name))).toEqual([]);
  });
});
