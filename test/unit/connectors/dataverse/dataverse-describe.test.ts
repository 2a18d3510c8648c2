import fs from 'node:fs';
import path from 'node:path';
import { createDataverseDescriber } from '../../../../connectors/dataverse/dataverse-describe';
import { checkRecorded, metadataExchange } from '../odata/check-kit';
import { API, CLIENT_SECRET, ORG } from './dataverse-test-kit';

const METADATA = fs.readFileSync(path.join(__dirname, 'recordings', 'metadata.xml'), 'utf8');
const crm = { name: 'crm', type: 'dataverse', settings: { url: ORG, auth: { kind: 'clientSecret', tenantId: 'contoso.onmicrosoft.com', clientId: '00000000-0000-0000-0000-00000000c11e' } }, secrets: { clientSecret: 'CRM_CLIENT_SECRET' } };
const secrets = { CRM_CLIENT_SECRET: CLIENT_SECRET };

describe('highwater check on Dataverse (recorded Web API $metadata)', () => {
  it('names missing entity sets and columns and a watermark of the wrong type; lookups and binds pass', async () => {
    const { issues, notices } = await checkRecorded('dataverse', createDataverseDescriber, [metadataExchange(`${API}$metadata`, METADATA)], {
      connections: [crm],
      mappings: [
        {
          name: 'accounts',
          source: { entity: 'accounts', key: ['accountid'] },
          target: { entity: 'contacts', key: ['contactid'] },
          fields: [
            { target: 'contactid', source: 'accountid' },
            { target: 'fullname', source: 'nmae' },
            { target: 'parentcustomerid_account', source: 'accountnumber' },
            { target: 'parentcustomerid_account@odata.bind', source: '_parentaccountid_value' },
            { target: 'jobtitle', source: 'revenue' },
          ],
        },
        { name: 'leads', source: { entity: 'leads', key: ['leadid'] }, target: { entity: 'accounts', key: ['accountid'] }, fields: [{ target: 'accountid', source: 'leadid' }] },
      ],
      jobs: [
        { name: 'by-stamp', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'accounts', watermark: { type: 'datetime', field: 'modifiedon' }, filter: [{ field: 'statecode', op: 'eq', value: 0 }, { field: 'statuscode', op: 'eq', value: 1 }] },
        { name: 'by-version', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'accounts', watermark: { type: 'datetime', field: 'versionnumber' } },
        { name: 'tracked', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'accounts', watermark: { type: 'string', field: '@odata.deltaLink' } },
        { name: 'leads', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'leads', watermark: { type: 'datetime', field: 'modifiedon' } },
      ],
    }, secrets);
    const at = '(dataverse connection "crm")';
    expect(issues).toEqual([
      `mappings.yaml: mappings[0].fields[1].source (accounts): property "nmae" not found in entity set "accounts" ${at}`,
      `mappings.yaml: mappings[0].fields[4].target (accounts): property "jobtitle" not found in entity set "contacts" ${at}`,
      `mappings.yaml: mappings[1].source.entity (leads): entity set "leads" not found ${at}`,
      `jobs.yaml: jobs[0].filter[1].field (by-stamp): property "statuscode" not found in entity set "accounts" ${at}`,
      `jobs.yaml: jobs[1].watermark.type (by-version): a datetime watermark needs dates: property "versionnumber" of entity set "accounts" is Edm.Int64 and holds no dates ${at}`,
    ]);
    expect(notices).toEqual([]);
  });

  it('reports a service whose $metadata cannot be read as a connection that cannot connect, without the secret', async () => {
    const refused = { note: '$metadata refused', request: { method: 'GET', url: `${API}$metadata` }, response: { status: 401, body: { error: { code: '0x80040220', message: `Principal user is missing prvReadEntity privilege (secret ${CLIENT_SECRET})` } } } };
    const { issues } = await checkRecorded('dataverse', createDataverseDescriber, [refused], {
      connections: [crm],
      mappings: [{ name: 'm', source: { entity: 'accounts', key: ['accountid'] }, target: { entity: 'accounts', key: ['accountid'] }, fields: [{ target: 'accountid', source: 'accountid' }] }],
      jobs: [{ name: 'j', schedule: '0 */5 * * * *', source: 'crm', target: 'crm', mapping: 'm', watermark: { type: 'datetime', field: 'modifiedon' } }],
    }, secrets);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^connections\.yaml: connections\[0\] \(crm\): cannot connect: dataverse connection "crm": read \$metadata: /);
    expect(issues[0]).not.toContain(CLIENT_SECRET);
  });
});
