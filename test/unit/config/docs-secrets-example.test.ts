import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { validateConfig } from '../../../src/config/validate-config';

/**
 * docs/settings.md and docs/deployment.md showed `passwordSetting: CRM_PASSWORD`,
 * which validation rejects. The example on the page must validate, and the old syntax must not
 * come back to the pages.
 */
describe('the connector secrets example in the docs', () => {
  const docs = path.join(__dirname, '../../../docs');
  const settingsPage = readFileSync(path.join(docs, 'settings.md'), 'utf8');
  const options = { connectionTypes: defaultConnectorRegistry().connectionTypes() };

  it('validates, with its secret named in secrets', () => {
    const section = settingsPage.slice(settingsPage.indexOf('## Connector secrets'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(yaml).toBeDefined();
    const { connections } = parse(yaml!) as { connections: unknown[] };
    const config = validateConfig({ connections, mappings: [], jobs: [] }, options);
    expect(config.connections[0]).toMatchObject({ name: 'crm', type: 'postgres', secrets: { password: 'CRM_PASSWORD' } });
  });

  it('the old syntax is gone from both pages (validation rejects it)', () => {
    for (const page of ['settings.md', 'deployment.md']) expect(readFileSync(path.join(docs, page), 'utf8')).not.toContain('passwordSetting');
    expect(() =>
      validateConfig({ connections: [{ name: 'crm', type: 'postgres', settings: { host: 'db', database: 'crm', user: 'sync', passwordSetting: 'CRM_PASSWORD' } }], mappings: [], jobs: [] }, options),
    ).toThrow('unknown setting of connector type postgres');
  });
});
