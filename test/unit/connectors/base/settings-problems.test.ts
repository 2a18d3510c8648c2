import { z } from 'zod';
import { secretReferenceProblems, settingsProblems } from '../../../../connectors/base/settings-problems';
import { described, integerBetween, knownProperties, matching, nonEmptyArray, nonEmptyString, oneOf, recordOf, settingDocs } from '../../../../connectors/base/settings-schema';

const name = () => matching(/^[a-z]+$/, 'must be lower-case letters');

const schema = knownProperties(
  {
    file: nonEmptyString('is required: the file'),
    size: integerBetween(64, 100).optional(),
    mode: oneOf(['fast', 'safe'], (v) => `must be fast or safe, got ${JSON.stringify(v)}`).optional(),
    keys: recordOf(name(), nonEmptyArray(name())).optional(),
    nested: knownProperties({ id: nonEmptyString(), note: nonEmptyString().optional() }, 'unknown property', 'must be an object with id').optional(),
  },
  'unknown setting of connector type test',
);

describe('settingsProblems', () => {
  it('reports each problem at its path, missing ones first and the rest in the order written', () => {
    expect(settingsProblems(schema, { nested: { zz: 1 }, colour: 'red', size: 1.5, mode: 'slow', keys: { ok: ['a', 'B'], Bad: ['a'], none: [] } })).toEqual([
      { path: 'settings.file', message: 'is required: the file' },
      { path: 'settings.nested.id', message: 'is required' },
      { path: 'settings.nested.zz', message: 'unknown property (known: id, note)' },
      { path: 'settings.colour', message: 'unknown setting of connector type test (known: file, size, mode, keys, nested)' },
      // Fractional and below the minimum: one rule, one problem.
      { path: 'settings.size', message: 'must be an integer from 64 to 100' },
      { path: 'settings.mode', message: 'must be fast or safe, got "slow"' },
      { path: 'settings.keys.ok[1]', message: 'must be lower-case letters' },
      { path: 'settings.keys.Bad', message: 'must be lower-case letters' },
      { path: 'settings.keys.none', message: 'must be a non-empty array' },
    ]);
  });

  it('quotes a key that is not an identifier, as every other configuration path does', () => {
    expect(settingsProblems(schema, { file: 'f', nested: { id: 'x', 'sales-orders': 1 }, keys: { 'two words': ['a'] } })).toEqual([
      { path: 'settings.nested["sales-orders"]', message: 'unknown property (known: id, note)' },
      { path: 'settings.keys["two words"]', message: 'must be lower-case letters' },
    ]);
  });

  it('names the type of a wrong value, never the value', () => {
    expect(settingsProblems(schema, { file: ' ', nested: 'Tr0ub4dor', keys: ['x'] })).toEqual([
      { path: 'settings.file', message: 'must be a non-empty string' },
      { path: 'settings.nested', message: 'must be an object with id' },
      { path: 'settings.keys', message: 'must be an object' },
    ]);
  });

  it('reports a setting the type reads as a secret in the core words, not as unknown', () => {
    expect(settingsProblems(schema, { file: 'f', password: 'x', token: 'y' }, ['password'])).toEqual([
      { path: 'settings.password', message: 'literal secret not allowed; reference an app setting in secrets.password instead' },
      { path: 'settings.token', message: 'unknown setting of connector type test (known: file, size, mode, keys, nested)' },
    ]);
    expect(settingsProblems(schema, { file: 'f' })).toEqual([]);
  });

  it('documents settings in a registry of its own, not zod\'s global one', () => {
    const setting = described(z.string(), 'A file.', 'a.db');
    expect(settingDocs.get(setting)).toEqual({ description: 'A file.', default: 'a.db' });
    expect(z.globalRegistry.get(setting)).toBeUndefined();
  });
});

describe('secretReferenceProblems', () => {
  it('accepts the known secrets naming an app setting and names the others', () => {
    expect(secretReferenceProblems('test', { password: 'DB_PW', token: 'T', connectionString: 'has space' }, ['password', 'connectionString'])).toEqual([
      { path: 'secrets.token', message: 'unknown secret of connector type test (known: password, connectionString)' },
      { path: 'secrets.connectionString', message: 'must name an app setting (env var), without spaces' },
    ]);
    expect(secretReferenceProblems('test', { password: 'DB_PW' }, [])).toEqual([{ path: 'secrets.password', message: 'unknown secret of connector type test (known: none)' }]);
  });
});
