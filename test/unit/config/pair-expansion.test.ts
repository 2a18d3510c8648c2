import { diffConfig } from '../../../src/config/config-diff';
import { expandPair, withoutExpansion } from '../../../src/config/pair-expansion';
import { validateConfig } from '../../../src/config/validate-config';
import { JobActionType } from '../../../src/model/job';
import { ConfigValidationError } from '../../../src/platform/config-issue';
import { pairConfig, validRawPair } from './pair-fixture';

/** What every generated job has besides what the pair gives it: the job schema's defaults. */
const JOB_DEFAULTS = {
  order: 100,
  action: JobActionType.NewUpdate,
  skipOutdatedMessages: false,
  skipFailedRows: false,
  transitiveRetries: 0,
  lookbackSeconds: 0,
};

describe('pair expansion', () => {
  it('makes two jobs and two mappings, one per direction, appended to the hand-written ones', () => {
    const pair = validRawPair();
    pair.a.filter = [{ field: 'type', op: 'eq', value: 'customer' }];
    pair.b.softDelete = { field: 'blocked', op: 'eq', value: true };
    pair.priority = 'high';
    const config = validateConfig(pairConfig(pair));
    expect(config.mappings).toEqual([
      {
        name: 'accounts.a-to-b',
        source: { entity: 'accounts', key: ['account_no'] },
        target: { entity: 'customers', key: ['customer_no'] },
        fields: [
          { target: 'customer_no', source: 'account_no' },
          { target: 'company_name', source: 'name' },
          { target: 'state', source: 'status', operations: [{ op: 'valueMap', map: { A: 'active', I: 'inactive' } }] },
          { target: 'mail', source: 'email', operations: [{ op: 'lower' }] },
        ],
      },
      {
        name: 'accounts.b-to-a',
        source: { entity: 'customers', key: ['customer_no'] },
        target: { entity: 'accounts', key: ['account_no'] },
        fields: [
          { target: 'account_no', source: 'customer_no' },
          { target: 'name', source: 'company_name' },
          // The derived inverse of toB.
          { target: 'status', source: 'state', operations: [{ op: 'valueMap', map: { active: 'A', inactive: 'I' } }] },
          { target: 'credit_limit', source: 'credit_limit' },
        ],
      },
    ]);
    expect(config.jobs).toEqual([
      {
        ...JOB_DEFAULTS,
        name: 'accounts.a-to-b',
        schedule: '*/30 * * * * *',
        enabled: true,
        priority: 'high',
        source: 'crm',
        target: 'erp',
        mapping: 'accounts.a-to-b',
        watermark: { type: 'datetime', field: 'modified_at' },
        filter: [{ field: 'type', op: 'eq', value: 'customer' }],
        skipUnchanged: true,
        pair: { name: 'accounts', side: 'a', partner: 'accounts.b-to-a' },
      },
      {
        ...JOB_DEFAULTS,
        name: 'accounts.b-to-a',
        schedule: '*/30 * * * * *',
        enabled: true,
        priority: 'high',
        source: 'erp',
        target: 'crm',
        mapping: 'accounts.b-to-a',
        watermark: { type: 'datetime', field: 'changed_at' },
        filter: [],
        softDelete: { field: 'blocked', op: 'eq', value: true },
        skipUnchanged: true,
        pair: { name: 'accounts', side: 'b', partner: 'accounts.a-to-b' },
      },
    ]);
  });

  it('uses a given toA as it is, and derives toB from toA alone', () => {
    const pair = validRawPair();
    pair.fields[2] = { a: 'status', b: 'state', toA: [{ op: 'valueMap', map: { active: 'A', inactive: 'I' } }] };
    const [aToB, bToA] = expandPair(validateConfig(pairConfig(pair)).pairs[0]).mappings;
    expect(aToB.fields[2]).toEqual({ target: 'state', source: 'status', operations: [{ op: 'valueMap', map: { A: 'active', I: 'inactive' } }] });
    expect(bToA.fields[2]).toEqual({ target: 'status', source: 'state', operations: [{ op: 'valueMap', map: { active: 'A', inactive: 'I' } }] });
  });

  it('does not expand a pair with issues', () => {
    const pair = validRawPair();
    pair.b.connection = 'nope';
    const raw = pairConfig(pair);
    expect(() => validateConfig(raw)).toThrow(ConfigValidationError);
  });

  it('checks the generated items as hand-written ones, and names the pair where they fail', () => {
    const pair = validRawPair();
    pair.conflicts = 'a';
    const config = pairConfig(pair);
    // An outbox source needs a number watermark and no filter: side a's job breaks both.
    config.connections[0] = { name: 'crm', type: 'sqlite', settings: { file: './crm.db', outbox: { table: 'outbox' } } };
    pair.a.filter = [{ field: 'type', op: 'eq', value: 'customer' }];
    let issues: Array<[string, string, string]> = [];
    try {
      validateConfig(config);
    } catch (err) {
      issues = (err as ConfigValidationError).issues.map((i) => [i.file, i.path, i.message]);
    }
    expect(issues).toEqual([
      ['pairs', 'pairs[0].a.watermark.type', 'must be number when reading the outbox of connection "crm" (the outbox id is the change tracker), got "datetime"'],
      ['pairs', 'pairs[0].a.filter', 'is not supported when reading the outbox of connection "crm" (the application decides what it writes to the outbox)'],
    ]);
  });

  it('is left out of what is stored and diffed: the tables hold the pair', () => {
    const config = validateConfig(pairConfig(validRawPair()));
    expect(config.jobs.map((j) => j.name)).toEqual(['accounts.a-to-b', 'accounts.b-to-a']);
    const own = withoutExpansion(config);
    expect(own).toEqual({ connections: config.connections, mappings: [], jobs: [], pairs: config.pairs });
    const none = { connections: [], mappings: [], jobs: [], pairs: [] };
    expect(diffConfig(none, config)).toEqual({
      connections: { added: ['crm', 'erp'], changed: [], removed: [] },
      mappings: { added: [], changed: [], removed: [] },
      jobs: { added: [], changed: [], removed: [] },
      pairs: { added: ['accounts'], changed: [], removed: [] },
    });
    // Validating what is stored makes the same expansion again.
    expect(validateConfig(own)).toEqual(config);
  });

  it('diffs a configuration without pairs as before (no pairs table in the diff)', () => {
    const { connections, mappings, jobs } = pairConfig();
    const diff = diffConfig({ connections: [], mappings: [], jobs: [], pairs: [] }, validateConfig({ connections, mappings, jobs }));
    expect(Object.keys(diff)).toEqual(['connections', 'mappings', 'jobs']);
  });
});
