import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { JSON_SCHEMA_PATH } from '../../../src/config/json-schema';
import { validateConfig } from '../../../src/config/validate-config';

/**
 * What an editor sees: config files checked against the committed JSON Schema by a JSON Schema
 * validator (ajv, draft-07 as the schema declares), as the YAML and JSON language servers do.
 * Each connector type's settings are described, so a misspelt setting is flagged while typing,
 * and what the schema accepts, validation accepts too.
 */

const ROOT = path.join(__dirname, '..', '..', '..');
const schema = JSON.parse(readFileSync(path.join(ROOT, JSON_SCHEMA_PATH), 'utf8')) as object;
const validate = new Ajv({ allErrors: true }).compile(schema);

interface EditorResult {
  valid: boolean;
  /**
   * `<data path> <property>` of each property the schema does not know there. (A connection is
   * checked against every type's branch, so the other types' branches report its settings too.)
   */
  unknown: string[];
}

function check(file: unknown): EditorResult {
  const valid = validate(file) === true;
  const unknown = (validate.errors ?? []).flatMap((e) => ('additionalProperty' in e.params ? [`${e.dataPath} ${e.params.additionalProperty}`] : []));
  return { valid, unknown: [...new Set(unknown)] };
}

const isValid = (file: unknown) => check(file).valid;

/** One connection of each type, with most of its settings. */
const CONNECTIONS: Array<Record<string, unknown>> = [
  {
    name: 'files',
    type: 'sqlite',
    settings: { file: './crm.db', busyTimeoutMs: 10000, versionField: 'modified_at', groupCommit: true, synchronous: 'FULL', cacheSizeKb: 8192 },
  },
  { name: 'erp', type: 'postgres', settings: { host: 'db', port: 5432, database: 'erp', user: 'sync', schema: 'sales', ssl: true }, secrets: { password: 'ERP_PASSWORD' } },
  { name: 'erp-url', type: 'postgres', secrets: { connectionString: 'ERP_DATABASE_URL' }, maxConcurrency: 4 },
  { name: 'shop', type: 'mysql', settings: { host: 'shop.mysql.database.azure.com', port: 3306, database: 'shop', user: 'sync', ssl: true, versionField: 'updated_at' }, secrets: { password: 'SHOP_PASSWORD' } },
  { name: 'shop-url', type: 'mysql', secrets: { connectionString: 'SHOP_DB_URL' } },
  {
    name: 'catalog',
    type: 'odata',
    settings: {
      serviceUrl: 'https://host/odata/v4/catalog/',
      auth: { kind: 'clientSecret', tenantId: 'contoso', clientId: '00000000-0000-0000-0000-000000000001' },
      entityKeys: { Orders: ['ID'] },
      upsertMode: 'patch',
      batchFormat: 'json',
      batchSize: 50,
      timeoutMs: 30000,
      maxRetries: 2,
    },
    secrets: { clientSecret: 'CATALOG_SECRET' },
  },
  {
    name: 'crm',
    type: 'dataverse',
    settings: {
      url: 'https://contoso.crm4.dynamics.com',
      apiVersion: '9.2',
      auth: { kind: 'managedIdentity' },
      lookups: { contacts: { parentcustomerid_account: { entitySet: 'accounts', key: 'accountnumber' } } },
      upsertMultiple: { accounts: { logicalName: 'account', maxRecords: 100 } },
      batchSize: 20,
    },
  },
  {
    name: 'bc',
    type: 'businesscentral',
    settings: { company: 'CRONUS', tenantId: 'contoso', environment: 'sandbox', auth: { kind: 'certificate', tenantId: 'contoso', clientId: 'c', certificatePath: './bc.pem' } },
  },
  { name: 'bc-onprem', type: 'businesscentral', settings: { company: 'CRONUS', serviceUrl: 'https://bc.contoso.local:7048/BC/api/v2.0/' } },
];

const registryTypes = { connectionTypes: defaultConnectorRegistry().connectionTypes() };

/** The first connection of {@link CONNECTIONS} of `type`, with `settings` patched. */
function connectionOf(type: string, settings: Record<string, unknown>): Record<string, unknown> {
  const connection = CONNECTIONS.find((c) => c.type === type)!;
  return { ...connection, settings: { ...(connection.settings as object), ...settings } };
}

describe('the committed JSON Schema in an editor', () => {
  it('accepts a connection of every connector type, as validation with the connectors does', () => {
    expect(new Set(CONNECTIONS.map((c) => c.type))).toEqual(new Set(defaultConnectorRegistry().types()));
    expect(check({ connections: CONNECTIONS })).toEqual({ valid: true, unknown: [] });
    expect(validateConfig({ connections: CONNECTIONS, mappings: [], jobs: [] }, registryTypes).connections).toHaveLength(CONNECTIONS.length);
  });

  it.each([
    ['odata', { serviceUrll: 'https://host/odata/' }],
    ['sqlite', { busyTimeoutMS: 1000 }],
    ['postgres', { hots: 'db' }],
    ['dataverse', { apiversion: '9.2' }],
    ['businesscentral', { entityKey: { customers: ['number'] } }],
  ])('flags a misspelt %s setting, which validation rejects too', (type, misspelt) => {
    const connection = connectionOf(type, misspelt);
    const [name] = Object.keys(misspelt);
    expect(isValid({ connections: [connectionOf(type, {})] })).toBe(true);
    const result = check({ connections: [connection] });
    expect(result.valid).toBe(false);
    expect(result.unknown).toContain(`.connections[0].settings ${name}`);
    expect(() => validateConfig({ connections: [connection], mappings: [], jobs: [] }, registryTypes)).toThrow(
      `connections[0].settings.${name}: unknown setting of connector type ${type}`,
    );
  });

  it('checks nested settings and values, not only names', () => {
    const identity = check({ connections: [connectionOf('odata', { auth: { kind: 'managedIdentity', tenantId: 't' } })] });
    expect(identity.valid).toBe(false);
    expect(identity.unknown).toContain('.connections[0].settings.auth tenantId');
    expect(isValid({ connections: [connectionOf('odata', { auth: { kind: 'managedIdentity', clientId: 'c' } })] })).toBe(true);
    expect(isValid({ connections: [connectionOf('sqlite', { busyTimeoutMs: 'soon' })] })).toBe(false);
    expect(isValid({ connections: [connectionOf('sqlite', { busyTimeoutMs: -1 })] })).toBe(false);
    expect(isValid({ connections: [connectionOf('sqlite', { synchronous: 'full' })] })).toBe(false);
    expect(isValid({ connections: [connectionOf('odata', { entityKeys: { Orders: [] } })] })).toBe(false);
    expect(isValid({ connections: [connectionOf('dataverse', { lookups: { contacts: { parent: { key: 'x' } } } })] })).toBe(false);
  });

  it('rejects an unknown connector type and a type whose required settings are missing', () => {
    expect(isValid({ connections: [{ name: 'x', type: 'mssql', settings: {} }] })).toBe(false);
    expect(isValid({ connections: [{ name: 'x', type: 'sqlite' }] })).toBe(false);
    expect(isValid({ connections: [{ name: 'x', type: 'odata', settings: { upsertMode: 'patch' } }] })).toBe(false);
    expect(isValid({ connections: [{ name: 'x', type: 'postgres', secrets: { connectionString: 'DB_URL' } }] })).toBe(true);
  });

  it('accepts every configuration file of examples/', () => {
    const files = readdirSync(path.join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const parsed: unknown = parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8'));
      expect({ file, valid: isValid(parsed) }).toEqual({ file, valid: true });
    }
  });

  it('accepts the connections of docs/connectors.md', () => {
    const blocks = [...readFileSync(path.join(ROOT, 'docs', 'connectors.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)];
    const connections = blocks.flatMap((m) => ((parse(m[1]) as { connections?: unknown[] } | null)?.connections ?? []) as Array<{ type: string }>);
    for (const type of ['odata', 'dataverse', 'businesscentral']) expect(connections.map((c) => c.type)).toContain(type);
    expect(check({ connections })).toEqual({ valid: true, unknown: [] });
  });
});
