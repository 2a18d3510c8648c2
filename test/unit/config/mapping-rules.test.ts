import { validateConfig } from '../../../src/config/validate-config';
import { issueLines, validRawConfig } from './valid-config';

/** Issue lines for a config whose first mapping gets `patch`. */
function mappingIssues(patch: Record<string, unknown>): string[] {
  const raw = validRawConfig();
  Object.assign(raw.mappings[0], patch);
  return issueLines(() => validateConfig(raw));
}

const KEY = { target: 'crm_id', source: 'id' };

describe('mapping rules', () => {
  it('needs exactly one of source and constant per field', () => {
    expect(mappingIssues({ fields: [KEY, { target: 'country' }] })).toEqual(['mappings: mappings[0].fields[1]: give source or constant']);
    expect(mappingIssues({ fields: [KEY, { target: 'country', source: 'land', constant: 'CH' }] })).toEqual([
      'mappings: mappings[0].fields[1]: give either source or constant, not both',
    ]);
    expect(mappingIssues({ fields: [KEY, { target: 'country', constant: 'CH' }, { target: 'note', constant: null }] })).toEqual([]);
  });

  it('allows concat to read other source fields', () => {
    const fullName = { target: 'full_name', source: 'first_name', operations: [{ op: 'concat', fields: ['last_name'], separator: ' ' }] };
    expect(mappingIssues({ fields: [KEY, fullName] })).toEqual([]);
    expect(mappingIssues({ fields: [KEY, { ...fullName, operations: [{ op: 'concat', fields: [] }] }] })).toEqual([
      'mappings: mappings[0].fields[1].operations[0].fields: must have at least 1 item',
    ]);
  });

  it('names the unknown operation and the known ones', () => {
    expect(mappingIssues({ fields: [KEY, { target: 'name', source: 'name', operations: [{ op: 'uppercase' }] }] })).toEqual([
      'mappings: mappings[0].fields[1].operations[0].op: expected one of "trim", "upper", "lower", "concat", "formatDate", "formatNumber", "default", "constant", "valueMap"; got "uppercase"',
    ]);
  });

  it('checks operation parameters, including time zones', () => {
    const ops = [
      { op: 'formatDate', format: 'yyyy-MM-dd', zone: 'Europe/Zurich' },
      { op: 'formatDate', format: 'yyyy-MM-dd', zone: 'Mars/Olympus' },
      { op: 'formatNumber', decimals: -1 },
      { op: 'trim', extra: true },
    ];
    expect(mappingIssues({ fields: [KEY, { target: 'd', source: 'd', operations: ops }] })).toEqual([
      'mappings: mappings[0].fields[1].operations[1].zone: unknown time zone "Mars/Olympus"',
      'mappings: mappings[0].fields[1].operations[2].decimals: must be at least 0',
      'mappings: mappings[0].fields[1].operations[3].extra: unknown property',
    ]);
  });

  it('requires target key fields to be mapped target fields', () => {
    expect(mappingIssues({ target: { entity: 'customers', key: ['crm_id', 'number'] } })).toEqual([
      'mappings: mappings[0].target.key[1]: key field "number" is not a mapped target field (fields[].target)',
    ]);
  });

  it('rejects a target field mapped twice', () => {
    expect(mappingIssues({ fields: [KEY, { target: 'crm_id', source: 'other' }] })).toEqual([
      'mappings: mappings[0].fields[1].target: duplicate target field "crm_id" (also fields[0])',
    ]);
  });

  it('requires key fields and at least one field', () => {
    expect(mappingIssues({ source: { entity: 'accounts', key: [] }, fields: [] })).toEqual([
      'mappings: mappings[0].source.key: must have at least 1 item',
      'mappings: mappings[0].fields: must have at least 1 item',
    ]);
  });

  it('fills the resolver default and checks onMissing', () => {
    const resolver = { entity: 'accounts', matchField: 'id', returnField: 'erp_number' };
    const raw = validRawConfig();
    raw.mappings[0].fields = [KEY, { target: 'customer_no', source: 'account_id', resolver }];
    expect(validateConfig(raw).mappings[0].fields[1].resolver).toEqual({ ...resolver, onMissing: 'null' });
    expect(mappingIssues({ fields: [KEY, { target: 'c', source: 'a', resolver: { ...resolver, onMissing: 'skip' } }] })).toEqual([
      'mappings: mappings[0].fields[1].resolver.onMissing: expected one of "null", "transitive", "error"; got "skip"',
    ]);
  });
});
