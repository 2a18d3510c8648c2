import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { defaultConnectorRegistry } from '../../../../connectors/default-registry';
import { validateConfig } from '../../../../src/config/validate-config';

const DOC = path.join(__dirname, '../../../../docs/connectors.md');

/** The YAML blocks of each `## ` section of the document, merged (one configuration folder per section). */
function examples(): Array<[string, Record<string, unknown>]> {
  const sections = readFileSync(DOC, 'utf8').split(/^## /m).slice(1);
  return sections
    .map((section): [string, Record<string, unknown>] => {
      const title = section.slice(0, section.indexOf('\n'));
      const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]) as Record<string, unknown>);
      return [title, Object.assign({}, ...blocks) as Record<string, unknown>];
    })
    .filter(([, config]) => Object.keys(config).length > 0);
}

describe('docs/connectors.md', () => {
  it('has a full configuration for OData, Dataverse, Business Central, an outbox and push', () => {
    expect(examples().map(([title]) => title)).toEqual([
      'OData V4 (`odata`)', 'Dataverse (`dataverse`)', 'Business Central (`businesscentral`)', 'Outbox tables (`outbox` in `sqlite`, `postgres` and `mysql` settings)', 'Push: webhooks and events',
    ]);
  });

  it.each(examples())('the %s example is a valid configuration', (_title, config) => {
    const valid = validateConfig(config as { connections: unknown; mappings: unknown; jobs: unknown }, { connectionTypes: defaultConnectorRegistry().connectionTypes() });
    expect(valid.jobs.length).toBeGreaterThan(1);
  });
});
