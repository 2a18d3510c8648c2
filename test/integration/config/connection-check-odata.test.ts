import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { checkFolder } from '../../../src/cli/commands/check';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { type CapServer, startCapServer } from '../connectors/odata/cap-server';

/**
 * `highwater check` against a real OData V4 service (SAP CAP): entity sets and properties from
 * its `$metadata`, the watermark property's Edm type (Dataverse and Business Central: recorded
 * exchanges, test/unit/connectors/dataverse|businesscentral/*-describe.test.ts).
 */
describe('highwater check on OData', () => {
  let server: CapServer;
  let dir: string;
  const validateOptions = () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() });

  beforeAll(async () => {
    server = await startCapServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-odata-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(config: { connections: object[]; mappings: object[]; jobs: object[] }): void {
    for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }

  it('names missing entity sets and properties and a watermark of the wrong type', async () => {
    write({
      connections: [
        { name: 'cap', type: 'odata', settings: { serviceUrl: server.url } },
      ],
      mappings: [
        {
          name: 'books',
          source: { entity: 'Books', key: ['ID'] },
          target: { entity: 'Orders', key: ['number'] },
          fields: [{ target: 'number', source: 'ID' }, { target: 'quantity', source: 'stock' }, { target: 'titel', source: 'titel' }],
        },
        { name: 'gone', source: { entity: 'Bookz', key: ['ID'] }, target: { entity: 'Books', key: ['ID'] }, fields: [{ target: 'ID', source: 'ID' }] },
      ],
      jobs: [
        { name: 'by-stamp', schedule: '0 */5 * * * *', source: 'cap', target: 'cap', mapping: 'books', watermark: { type: 'datetime', field: 'modifiedAt' } },
        { name: 'by-number', schedule: '0 */5 * * * *', source: 'cap', target: 'cap', mapping: 'books', watermark: { type: 'number', field: 'modifiedAt' } },
        { name: 'gone', schedule: '0 */5 * * * *', source: 'cap', target: 'cap', mapping: 'gone', watermark: { type: 'datetime', field: 'modifiedAt' } },
      ],
    });
    const report = await checkFolder(dir, { resolveSecret: () => undefined, validateOptions });
    const cap = '(odata connection "cap")';
    expect(report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`)).toEqual([
      `mappings.yaml: mappings[0].fields[2].source (books): property "titel" not found in entity set "Books" ${cap}`,
      `mappings.yaml: mappings[0].fields[2].target (books): property "titel" not found in entity set "Orders" ${cap}`,
      `mappings.yaml: mappings[1].source.entity (gone): entity set "Bookz" not found ${cap}`,
      `jobs.yaml: jobs[1].watermark.type (by-number): a number watermark needs a numeric column: property "modifiedAt" of entity set "Books" is Edm.DateTimeOffset ${cap}`,
    ]);
    expect(report.notices).toEqual([]);
  });

  it('reports a service that does not answer', async () => {
    write({
      connections: [{ name: 'cap', type: 'odata', settings: { serviceUrl: 'http://127.0.0.1:1/odata/', timeoutMs: 2000 } }],
      mappings: [{ name: 'm', source: { entity: 'Books', key: ['ID'] }, target: { entity: 'Books', key: ['ID'] }, fields: [{ target: 'ID', source: 'ID' }] }],
      jobs: [{ name: 'j', schedule: '0 */5 * * * *', source: 'cap', target: 'cap', mapping: 'm', watermark: { type: 'datetime', field: 'modifiedAt' } }],
    });
    const report = await checkFolder(dir, { resolveSecret: () => undefined, validateOptions });
    expect(report.issues).toHaveLength(1);
    expect(report.issues[0]).toMatchObject({ file: 'connections.yaml', path: 'connections[0]', entry: 'cap' });
    expect(report.issues[0].message).toMatch(/^cannot connect: odata connection "cap": read \$metadata: /);
  });
});
