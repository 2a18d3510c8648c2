import fs from 'node:fs';
import path from 'node:path';
import { createBusinessCentralDescriber } from '../../../../connectors/businesscentral/bc-describe';
import { checkRecorded, metadataExchange } from '../odata/check-kit';
import type { RecordedExchange } from '../odata/replay-fetch';

const TENANT = '11111111-2222-3333-4444-555555555555';
const API = `https://api.businesscentral.dynamics.com/v2.0/${TENANT}/production/api/v2.0/`;
const METADATA = fs.readFileSync(path.join(__dirname, 'recordings', 'metadata.xml'), 'utf8');
const erp = (company: string) => ({ name: 'erp', type: 'businesscentral', settings: { tenantId: TENANT, company, auth: { kind: 'managedIdentity' } } });
const companies: RecordedExchange = {
  note: 'the company named in settings is looked up',
  request: { method: 'GET', url: `${API}companies?$select=id,name,displayName` },
  response: { status: 200, body: { value: [{ id: 'f03f6225-081c-ec11-86bc-000d3a4a1b2c', name: 'CRONUS USA, Inc.', displayName: 'CRONUS USA, Inc.' }] } },
};
const customers = { name: 'customers', source: { entity: 'customers', key: ['id'] }, target: { entity: 'salesInvoices', key: ['number'] }, fields: [{ target: 'number', source: 'number' }] };

describe('highwater check on Business Central (recorded API v2.0 $metadata)', () => {
  it('names missing entity sets and fields and a watermark of the wrong type, after finding the company', async () => {
    const { issues, notices } = await checkRecorded('businesscentral', createBusinessCentralDescriber, [metadataExchange(`${API}$metadata`, METADATA), companies], {
      connections: [erp('CRONUS USA, Inc.')],
      mappings: [
        {
          ...customers,
          fields: [{ target: 'number', source: 'number' }, { target: 'customerNumber', source: 'displayName' }, { target: 'totalAmount', source: 'balanceDue' }, { target: 'customerName', source: 'phoneNumber' }],
        },
        { name: 'vendors', source: { entity: 'vendors', key: ['id'] }, target: { entity: 'customers', key: ['number'] }, fields: [{ target: 'number', source: 'number' }] },
      ],
      jobs: [
        { name: 'by-stamp', schedule: '0 */5 * * * *', source: 'erp', target: 'erp', mapping: 'customers', watermark: { type: 'datetime', field: 'lastModifiedDateTime' } },
        { name: 'by-number', schedule: '0 */5 * * * *', source: 'erp', target: 'erp', mapping: 'customers', watermark: { type: 'number', field: 'lastModifiedDateTime' }, softDelete: { field: 'blockd', op: 'eq', value: 'All' } },
        { name: 'vendors', schedule: '0 */5 * * * *', source: 'erp', target: 'erp', mapping: 'vendors', watermark: { type: 'datetime', field: 'lastModifiedDateTime' } },
      ],
    });
    const at = '(businesscentral connection "erp")';
    expect(issues).toEqual([
      `mappings.yaml: mappings[0].fields[3].source (customers): property "phoneNumber" not found in entity set "customers" ${at}`,
      `mappings.yaml: mappings[0].fields[2].target (customers): property "totalAmount" not found in entity set "salesInvoices" ${at}`,
      `mappings.yaml: mappings[0].fields[3].target (customers): property "customerName" not found in entity set "salesInvoices" ${at}`,
      `mappings.yaml: mappings[1].source.entity (vendors): entity set "vendors" not found ${at}`,
      `jobs.yaml: jobs[1].softDelete.field (by-number): property "blockd" not found in entity set "customers" ${at}`,
      `jobs.yaml: jobs[1].watermark.type (by-number): a number watermark needs a numeric column: property "lastModifiedDateTime" of entity set "customers" is Edm.DateTimeOffset ${at}`,
    ]);
    expect(notices).toEqual([]);
  });

  it('fails the connection for a company that does not exist, naming the companies there are', async () => {
    const { issues } = await checkRecorded('businesscentral', createBusinessCentralDescriber, [metadataExchange(`${API}$metadata`, METADATA), companies], {
      connections: [erp('CRONUS Intl')],
      mappings: [customers],
      jobs: [{ name: 'j', schedule: '0 */5 * * * *', source: 'erp', target: 'erp', mapping: 'customers', watermark: { type: 'datetime', field: 'lastModifiedDateTime' } }],
    });
    expect(issues).toEqual([
      'connections.yaml: connections[0] (erp): cannot connect: businesscentral connection "erp": settings.company: no company named "CRONUS Intl" (companies: "CRONUS USA, Inc.")',
    ]);
  });
});
