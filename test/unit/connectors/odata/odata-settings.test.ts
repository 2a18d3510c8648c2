import { validateBusinessCentralSettings } from '../../../../connectors/businesscentral';
import { validateDataverseSettings } from '../../../../connectors/dataverse';
import { validateOdataSettings } from '../../../../connectors/odata';

describe('settings of OData-based connections', () => {
  it('accepts a complete odata connection and names every problem by path', () => {
    expect(validateOdataSettings({ serviceUrl: 'https://host/odata/v4/catalog/', entityKeys: { Orders: ['ID'] }, upsertMode: 'patch', timeoutMs: 5000 }, {})).toEqual([]);
    expect(
      validateOdataSettings({ entityKeys: { Orders: [] }, upsertMode: 'merge', timeoutMs: 5, colour: 'red', clientSecret: 'x' }, { password: 'PW' }),
    ).toEqual([
      { path: 'settings.clientSecret', message: 'literal secret not allowed; reference an app setting in secrets.clientSecret instead' },
      { path: 'settings.serviceUrl', message: 'is required' },
      { path: 'settings.entityKeys.Orders', message: 'must be a non-empty array' },
      { path: 'settings.upsertMode', message: 'must be one of read-then-write, patch' },
      { path: 'settings.timeoutMs', message: 'must be an integer from 1000 to 600000' },
      {
        path: 'settings.colour',
        message: 'unknown setting of connector type odata (known: auth, timeoutMs, maxRetries, maxRetryWaitMs, versionField, serviceUrl, entityKeys, upsertMode, batchFormat, batchSize, ieee754Compatible)',
      },
      { path: 'secrets.password', message: 'unknown secret of connector type odata (known: clientSecret, certificate)' },
    ]);
    expect(validateOdataSettings({ serviceUrl: 'ftp://host/x?y=1' }, {})).toEqual([
      { path: 'settings.serviceUrl', message: 'must be an absolute http(s) URL without query or fragment' },
    ]);
  });

  it('checks auth and the secrets it needs', () => {
    const url = { serviceUrl: 'https://host/' };
    expect(validateOdataSettings({ ...url, auth: { kind: 'clientSecret', tenantId: 't', clientId: 'c' } }, { clientSecret: 'APP_SECRET' })).toEqual([]);
    expect(validateOdataSettings({ ...url, auth: { kind: 'clientSecret', tenantId: 't' } }, {})).toEqual([
      { path: 'settings.auth.clientId', message: 'is required' },
      { path: 'secrets.clientSecret', message: 'is required for auth kind clientSecret: name the app setting that holds the client secret' },
    ]);
    expect(validateOdataSettings({ ...url, auth: { kind: 'certificate', tenantId: 't', clientId: 'c' } }, {})).toEqual([
      { path: 'settings.auth.certificatePath', message: 'give either certificatePath or secrets.certificate (PEM text), not both' },
    ]);
    expect(validateOdataSettings({ ...url, auth: { kind: 'managedIdentity', tenantId: 't' } }, { clientSecret: 'S' })).toEqual([
      { path: 'settings.auth.tenantId', message: 'unknown property (known: kind, clientId, scope)' },
      { path: 'secrets.clientSecret', message: 'is not used by auth kind managedIdentity' },
    ]);
    expect(validateOdataSettings({ ...url, auth: { kind: 'password' } }, {})).toEqual([
      { path: 'settings.auth.kind', message: 'must be one of none, clientSecret, certificate, managedIdentity' },
    ]);
    expect(validateOdataSettings({ ...url }, { clientSecret: 'has space' })).toEqual([
      { path: 'secrets.clientSecret', message: 'must name an app setting (env var), without spaces' },
      { path: 'secrets.clientSecret', message: 'is not used by auth kind none' },
    ]);
  });

  it('checks dataverse settings', () => {
    expect(validateDataverseSettings({ url: 'https://contoso.crm4.dynamics.com', lookups: { contacts: { parentcustomerid_account: { entitySet: 'accounts', key: 'accountnumber' } } } }, {})).toEqual([]);
    expect(validateDataverseSettings({ url: 'https://contoso.crm4.dynamics.com/api/data', apiVersion: 'v9', batchSize: 5000, lookups: { contacts: { parent: { key: 'x' } } } }, {})).toEqual([
      { path: 'settings.url', message: 'must be the environment URL without a path, e.g. https://contoso.crm4.dynamics.com' },
      { path: 'settings.apiVersion', message: 'must be a version such as 9.2' },
      { path: 'settings.batchSize', message: 'must be an integer from 1 to 1000' },
      { path: 'settings.lookups.contacts.parent.entitySet', message: 'is required' },
    ]);
  });

  it('checks business central settings', () => {
    expect(validateBusinessCentralSettings({ tenantId: 't', environment: 'sandbox', company: 'CRONUS' }, {})).toEqual([]);
    expect(validateBusinessCentralSettings({ serviceUrl: 'https://bc.local:7048/BC/api/v2.0/', company: 'CRONUS' }, {})).toEqual([]);
    expect(validateBusinessCentralSettings({ apiPath: 'v2.0' }, {})).toEqual([
      { path: 'settings.company', message: 'is required' },
      { path: 'settings.apiPath', message: 'must be an API path such as api/v2.0 or api/<publisher>/<group>/<version>' },
      { path: 'settings.tenantId', message: 'is required (or give the whole API root in settings.serviceUrl)' },
    ]);
    expect(validateBusinessCentralSettings({ serviceUrl: 'https://bc.local/BC/api/v2.0/', tenantId: 't', company: 'C' }, {})).toEqual([
      { path: 'settings.tenantId', message: 'must not be set together with settings.serviceUrl' },
    ]);
  });
});

describe('batch settings', () => {
  it('checks batchFormat and batchSize of odata, and upsertMultiple of dataverse', () => {
    expect(validateOdataSettings({ serviceUrl: 'https://h/odata/', batchFormat: 'xml', batchSize: 0 }, {})).toEqual([
      { path: 'settings.batchFormat', message: 'must be one of json, multipart, off' },
      { path: 'settings.batchSize', message: 'must be an integer from 1 to 1000' },
    ]);
    expect(validateOdataSettings({ serviceUrl: 'https://h/odata/', batchFormat: 'json', batchSize: 100 }, {})).toEqual([]);
    expect(validateDataverseSettings({ url: 'https://o.crm.dynamics.com', upsertMultiple: { accounts: { logicalName: 'account', maxRecords: 5000 }, contacts: {} } }, {})).toEqual([
      { path: 'settings.upsertMultiple.accounts.maxRecords', message: 'must be an integer from 1 to 1000' },
      { path: 'settings.upsertMultiple.contacts.logicalName', message: 'is required' },
    ]);
  });
});
