import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { DescriberFactory } from '../../../../connectors/base/entity-describer';
import { defaultConnectorRegistry } from '../../../../connectors/default-registry';
import { checkFolder } from '../../../../src/cli/commands/check';
import type { OdataTransportOverrides } from '../../../../connectors/odata/odata-connection';
import { type RecordedExchange, replayFetch } from './replay-fetch';

/** A configuration folder of the check tests. */
export interface CheckConfig {
  connections: object[];
  mappings: object[];
  jobs: object[];
}

/**
 * Runs `highwater check` on `config` (written to a temporary folder) with the describer of
 * connection type `type` answered from `exchanges`; every exchange must be used.
 * @returns the issues as `file: path (entry): message` lines, and the notices.
 */
export async function checkRecorded(
  type: string,
  describer: (overrides: OdataTransportOverrides) => DescriberFactory,
  exchanges: RecordedExchange[],
  config: CheckConfig,
  secrets: Record<string, string> = {},
): Promise<{ issues: string[]; notices: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hw-check-${type}-`));
  try {
    for (const kind of ['connections', 'mappings', 'jobs'] as const) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
    const replay = replayFetch(exchanges);
    const open = describer({ fetch: replay.fetch, tokens: () => ({ getToken: async () => 'test-token' }) });
    const report = await checkFolder(dir, {
      resolveSecret: (name) => secrets[name],
      describers: { [type]: { open } },
      validateOptions: () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() }),
    });
    replay.assertDone();
    return { issues: report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`), notices: report.notices };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A `$metadata` answer as services send it. */
export function metadataExchange(url: string, xml: string, note = 'the service\'s $metadata'): RecordedExchange {
  return { note, request: { method: 'GET', url, headers: { accept: 'application/xml' } }, response: { status: 200, headers: { 'content-type': 'application/xml' }, body: xml } };
}
