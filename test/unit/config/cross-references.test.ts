import { validateConfig } from '../../../src/config/validate-config';
import { issueLines, validRawConfig } from './valid-config';

function job(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, schedule: '0 * * * * *', source: 'crm', target: 'erp', mapping: 'accounts', watermark: { type: 'number', field: 'v' }, ...extra };
}

describe('cross-references', () => {
  it('resolves source, target, mapping and responseJob by name', () => {
    const raw = validRawConfig();
    Object.assign(raw.jobs[0], { source: 'crn', target: 'erp2', mapping: 'acounts', responseJob: 'numbers' });
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'jobs: jobs[0].source: unknown connection "crn" (known: crm, erp)',
      'jobs: jobs[0].target: unknown connection "erp2" (known: crm, erp)',
      'jobs: jobs[0].mapping: unknown mapping "acounts" (known: accounts, numbers)',
      'jobs: jobs[0].responseJob: unknown job "numbers" (known: accounts-to-erp, numbers-to-crm)',
    ]);
  });

  it('requires unique names per kind, but allows the same name across kinds', () => {
    const raw = validRawConfig();
    raw.connections.push({ name: 'crm', type: 'sqlite' });
    raw.mappings[1].name = 'accounts';
    raw.jobs[1].mapping = 'accounts';
    raw.jobs.push(job('accounts-to-erp'), job('accounts'));
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'connections: connections[2].name: duplicate connection name "crm" (also connections[0])',
      'mappings: mappings[1].name: duplicate mapping name "accounts" (also mappings[0])',
      'jobs: jobs[2].name: duplicate job name "accounts-to-erp" (also jobs[0])',
    ]);
  });

  it('does not report a reference to an entry that has errors of its own as unknown', () => {
    const raw = validRawConfig();
    raw.connections[1].maxConcurrency = -1;
    raw.mappings[0].fields = [];
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'connections: connections[1].maxConcurrency: must be greater than 0',
      'mappings: mappings[0].fields: must have at least 1 item',
    ]);
  });

  it('names responseJob cycles once, from their first job', () => {
    const raw = validRawConfig();
    raw.jobs = [job('x'), job('a', { responseJob: 'b' }), job('b', { responseJob: 'a' }), job('self', { responseJob: 'self' })];
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'jobs: jobs[1].responseJob: cycle a → b → a',
      'jobs: jobs[3].responseJob: cycle self → self',
    ]);
  });

  it('finds a cycle that a chain runs into', () => {
    const raw = validRawConfig();
    raw.jobs = [job('start', { responseJob: 'c' }), job('c', { responseJob: 'd' }), job('d', { responseJob: 'e' }), job('e', { responseJob: 'c' })];
    expect(issueLines(() => validateConfig(raw))).toEqual(['jobs: jobs[1].responseJob: cycle c → d → e → c']);
  });

  it('requires a responseMapping on the mapping of a job with a responseJob', () => {
    const raw = validRawConfig();
    delete raw.mappings[0].responseMapping;
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'jobs: jobs[0].responseJob: mapping "accounts" has no responseMapping, so nothing would be sent to "numbers-to-crm"',
    ]);
  });
});
