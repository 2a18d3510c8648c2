import { ConfigValidationError, formatIssueNamed } from '../../../src/platform/config-issue';
import { validateConfig } from '../../../src/config/validate-config';
import { errorKind } from '../../../src/platform/errors';
import { JobActionType } from '../../../src/model';
import { issueLines, validRawConfig } from './valid-config';

describe('validateConfig', () => {
  it('returns the model types with every documented default filled in', () => {
    const config = validateConfig(validRawConfig());
    expect(config.connections[0]).toEqual({ name: 'crm', type: 'sqlite', settings: { file: './crm.db' }, secrets: {}, maxConcurrency: 8 });
    expect(config.jobs[1]).toEqual({
      name: 'numbers-to-crm',
      order: 100,
      schedule: '*/10 * * * * *',
      enabled: true,
      source: 'erp',
      target: 'crm',
      mapping: 'numbers',
      priority: 'normal',
      watermark: { type: 'datetime', field: 'modified_at' },
      filter: [],
      action: JobActionType.NewUpdate,
      skipFailedRows: false,
      skipOutdatedMessages: false,
      skipUnchanged: false,
      transitiveRetries: 0,
      lookbackSeconds: 0,
    });
    expect(config.mappings[1]).toEqual(validRawConfig().mappings[1]);
  });

  it('keeps given values instead of defaults', () => {
    const raw = validRawConfig();
    Object.assign(raw.jobs[1], { order: 5, enabled: false, priority: 'low', pageSize: 50, lookbackSeconds: 30, skipUnchanged: true });
    raw.connections[0].maxConcurrency = 2;
    const config = validateConfig(raw);
    expect(config.jobs[1]).toMatchObject({ order: 5, enabled: false, priority: 'low', pageSize: 50, lookbackSeconds: 30, skipUnchanged: true });
    expect(config.connections[0].maxConcurrency).toBe(2);
  });

  it('throws a ConfigValidationError that errorKind() classifies as config, one issue per line', () => {
    const raw = validRawConfig();
    raw.jobs[0].schedule = '0 61 * * * *';
    raw.jobs[1].priority = 'urgent';
    let caught: unknown;
    try {
      validateConfig(raw, { files: { connections: 'connections.yaml', mappings: 'mappings.yaml', jobs: 'jobs.yaml' } });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigValidationError);
    const error = caught as ConfigValidationError;
    expect(error.name).toBe('ConfigError');
    expect(errorKind(error)).toBe('config');
    expect(error.issues).toEqual([
      { file: 'jobs.yaml', path: 'jobs[0].schedule', message: 'invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59', entry: 'accounts-to-erp' },
      { file: 'jobs.yaml', path: 'jobs[1].priority', message: 'expected one of "high", "normal", "low"; got "urgent"', entry: 'numbers-to-crm' },
    ]);
    // The CLI's and the status page's form names the entry beside its index.
    expect(error.issues.map(formatIssueNamed)).toEqual([
      'jobs.yaml: jobs[0].schedule (job "accounts-to-erp"): invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59',
      'jobs.yaml: jobs[1].priority (job "numbers-to-crm"): expected one of "high", "normal", "low"; got "urgent"',
    ]);
    expect(error.message).toBe(
      'jobs.yaml: jobs[0].schedule: invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59\n' +
        'jobs.yaml: jobs[1].priority: expected one of "high", "normal", "low"; got "urgent"',
    );
  });

  it('names the table when no file names are given', () => {
    const raw = validRawConfig();
    raw.connections[1].maxConcurrency = 0;
    expect(issueLines(() => validateConfig(raw))).toEqual(['connections: connections[1].maxConcurrency: must be greater than 0']);
  });

  it('rejects unknown properties at every level', () => {
    const raw = validRawConfig();
    raw.jobs[0].schedul = '* * * * * *';
    (raw.jobs[1].watermark as Record<string, unknown>).feld = 'x';
    raw.connections[0].setings = {};
    (raw.mappings[0].source as Record<string, unknown>)['primary-key'] = ['id'];
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'connections: connections[0].setings: unknown property; did you mean settings?',
      'mappings: mappings[0].source["primary-key"]: unknown property',
      'jobs: jobs[0].schedul: unknown property; did you mean schedule?',
      'jobs: jobs[1].watermark.feld: unknown property; did you mean field?',
    ]);
  });

  it('suggests the property meant for a mistyped one, per key', () => {
    const raw = validRawConfig();
    raw.jobs[0].pagesize = 100;
    raw.jobs[0].pageSzie = 100;
    raw.jobs[0].bogus = true;
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'jobs: jobs[0].pagesize: unknown property; did you mean pageSize?',
      'jobs: jobs[0].pageSzie: unknown property; did you mean pageSize?',
      'jobs: jobs[0].bogus: unknown property',
    ]);
  });

  it('reports missing and mistyped properties by type, not by value', () => {
    const raw = validRawConfig();
    delete raw.jobs[0].schedule;
    raw.jobs[0].pageSize = 12.5;
    raw.jobs[1].enabled = 'yes';
    raw.connections[0].settings = ['file'];
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'connections: connections[0].settings: expected an object, got list',
      'jobs: jobs[0].schedule: required',
      'jobs: jobs[0].pageSize: expected an integer, got 12.5',
      'jobs: jobs[1].enabled: expected a boolean, got string',
    ]);
  });

  it('requires each kind to be a list and entries to be objects', () => {
    expect(issueLines(() => validateConfig({ connections: {}, mappings: [], jobs: [42] }))).toEqual([
      'connections: connections: expected a list, got object',
      'jobs: jobs[0]: expected an object, got number',
    ]);
  });

  it('collects every issue rather than stopping at the first', () => {
    const raw = validRawConfig();
    raw.jobs[0].priority = 'urgent';
    raw.jobs[0].lookbackSeconds = -1;
    raw.jobs[1].mapping = 'nope';
    raw.mappings[0].name = '';
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'mappings: mappings[0].name: must not be empty',
      'jobs: jobs[0].priority: expected one of "high", "normal", "low"; got "urgent"',
      'jobs: jobs[0].lookbackSeconds: must be at least 0',
      'jobs: jobs[1].mapping: unknown mapping "nope" (known: numbers)',
    ]);
  });
});
