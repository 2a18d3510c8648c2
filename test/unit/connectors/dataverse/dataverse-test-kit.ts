import path from 'node:path';
import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { createDataverseConnectorFactory } from '../../../../connectors/dataverse';
import { systemClock } from '../../../../src/platform/clock';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { loadExchanges, type RecordedExchange, replayFetch } from '../odata/replay-fetch';
import { singleTarget } from '../../../support/single-target';

export const ORG = 'https://contoso.crm4.dynamics.com';
export const API = `${ORG}/api/data/v9.2/`;
export const CLIENT_SECRET = 'dv-client-s3cr3t';

export function recording(name: string): RecordedExchange[] {
  return loadExchanges(path.join(__dirname, 'recordings', `${name}.json`));
}

/** A Dataverse connection (client-secret auth) whose HTTP is answered from recorded exchanges. */
export function openDataverse(exchanges: RecordedExchange[], settings: Record<string, unknown> = {}, now = '2026-03-01T10:00:00.000Z') {
  const replay = replayFetch(exchanges);
  const warnings: string[] = [];
  const registry = new ConnectorRegistry([createDataverseConnectorFactory({ fetch: replay.fetch, tokens: () => ({ getToken: async () => 'test-token' }) })]);
  const ctx: ConnectorContext = {
    connection: {
      name: 'crm',
      type: 'dataverse',
      settings: { url: ORG, auth: { kind: 'clientSecret', tenantId: 'contoso.onmicrosoft.com', clientId: '00000000-0000-0000-0000-00000000c11e' }, ...settings },
      secrets: { clientSecret: 'CRM_CLIENT_SECRET' },
      maxConcurrency: 4,
    },
    resolveSecret: (name) => (name === 'CRM_CLIENT_SECRET' ? CLIENT_SECRET : undefined),
    configDir: __dirname,
    clock: { now: () => new Date(now), sleep: systemClock.sleep },
    warn: (m) => warnings.push(m),
  };
  return { replay, warnings, source: () => registry.createSource(ctx), target: () => singleTarget(registry.createTarget(ctx)) };
}

export const accountsMapping: Mapping = {
  name: 'accounts',
  source: { entity: 'accounts', key: ['accountid'] },
  target: { entity: 'customers', key: ['crm_id'] },
  fields: [
    { target: 'crm_id', source: 'accountid' },
    { target: 'name', source: 'name' },
    { target: 'number', source: 'accountnumber' },
  ],
};

export const trackingJob: Job = {
  name: 'crm-accounts', order: 1, schedule: '0 * * * * *', enabled: true, source: 'crm', target: 'erp', mapping: 'accounts',
  priority: 'normal', watermark: { type: 'string', field: '@odata.deltaLink' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};
