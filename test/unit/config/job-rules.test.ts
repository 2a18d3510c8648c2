import { validateConfig } from '../../../src/config/validate-config';
import { issueLines, validRawConfig } from './valid-config';

/** Issue lines for a config whose second job gets `patch`. */
function jobIssues(patch: Record<string, unknown>): string[] {
  const raw = validRawConfig();
  Object.assign(raw.jobs[1], patch);
  return issueLines(() => validateConfig(raw));
}

describe('job rules', () => {
  it('checks the schedule with the NCRONTAB rules', () => {
    expect(jobIssues({ schedule: '*/5 * * * *' })).toEqual([
      'jobs: jobs[1].schedule: invalid NCRONTAB "*/5 * * * *": expected 6 fields (second minute hour day month weekday), got 5',
    ]);
  });

  it('accepts only high, normal or low as priority', () => {
    expect(jobIssues({ priority: 'High' })).toEqual(['jobs: jobs[1].priority: expected one of "high", "normal", "low"; got "High"']);
  });

  it('accepts only configurable actions', () => {
    expect(jobIssues({ action: 'TimeStamp' })).toEqual([
      'jobs: jobs[1].action: expected one of "NewUpdate", "Delete", "InvokeAction"; got "TimeStamp"',
    ]);
  });

  it('requires actionName for InvokeAction jobs and only for them', () => {
    expect(jobIssues({ action: 'InvokeAction' })).toEqual(['jobs: jobs[1].actionName: required when action is InvokeAction']);
    expect(jobIssues({ action: 'Delete', actionName: 'post' })).toEqual(['jobs: jobs[1].actionName: only allowed when action is InvokeAction']);
    expect(jobIssues({ action: 'InvokeAction', actionName: 'post' })).toEqual([]);
  });

  it('requires a watermark field and a known watermark type (trimmed, any case)', () => {
    expect(jobIssues({ watermark: { type: 'datetime' } })).toEqual(['jobs: jobs[1].watermark.field: required']);
    expect(jobIssues({ watermark: { type: 'datetime', field: '' } })).toEqual(['jobs: jobs[1].watermark.field: must not be empty']);
    expect(jobIssues({ watermark: { type: 'rowversion', field: 'v' } })).toEqual([
      'jobs: jobs[1].watermark.type: expected one of datetime, date, number, string (case-insensitive); got "rowversion"',
    ]);
    expect(jobIssues({ watermark: { type: ' DateTime ', field: 'v' } })).toEqual([]);
  });

  it('checks numeric limits', () => {
    expect(jobIssues({ pageSize: 0, lookbackSeconds: -5, order: 1.5 })).toEqual([
      'jobs: jobs[1].order: expected an integer, got 1.5',
      'jobs: jobs[1].pageSize: must be greater than 0',
      'jobs: jobs[1].lookbackSeconds: must be at least 0',
    ]);
  });

  it('rejects names that cannot be table row keys or references', () => {
    const raw = validRawConfig();
    raw.jobs[1].name = 'numbers/to crm';
    raw.jobs[0].responseJob = 'numbers/to crm';
    raw.connections[0].name = ' crm';
    expect(issueLines(() => validateConfig(raw))).toEqual([
      'connections: connections[0].name: must not start or end with whitespace',
      'jobs: jobs[0].source: unknown connection "crm" (known:  crm, erp)',
      'jobs: jobs[1].name: must not contain / \\ # ? or control characters',
    ]);
  });

  describe('filter conditions', () => {
    const cases: Array<[string, Record<string, unknown>, string | undefined]> = [
      ['in with a list', { field: 'city', op: 'in', value: ['Bern', 'Basel'] }, undefined],
      ['in with a single value', { field: 'city', op: 'in', value: 'Bern' }, 'value: op "in" needs a list value'],
      ['notIn with an empty list', { field: 'city', op: 'notIn', value: [] }, 'value: op "notIn" needs at least one value'],
      ['isNull without value', { field: 'city', op: 'isNull' }, undefined],
      ['isNull with a value', { field: 'city', op: 'isNull', value: 'x' }, 'value: op "isNull" takes no value'],
      ['isNotNull with null', { field: 'city', op: 'isNotNull', value: null }, 'value: op "isNotNull" takes no value'],
      ['eq without value', { field: 'city', op: 'eq' }, 'value: op "eq" needs a value'],
      ['eq with a list', { field: 'city', op: 'eq', value: ['a'] }, 'value: op "eq" needs a single value, not a list (use "in")'],
      ['ne with null', { field: 'city', op: 'ne', value: null }, 'value: op "ne" cannot compare with null; use "isNull" or "isNotNull"'],
      ['like with a number', { field: 'city', op: 'like', value: 3 }, 'value: op "like" needs a string value'],
      ['gt with a number', { field: 'amount', op: 'gt', value: 3 }, undefined],
      ['unknown operator', { field: 'amount', op: 'between', value: 3 }, 'op: expected one of "eq", "ne", "gt", "ge", "lt", "le", "in", "notIn", "like", "isNull", "isNotNull"; got "between"'],
      ['object value', { field: 'amount', op: 'eq', value: { a: 1 } }, 'value: expected a string, a number, a boolean, null or a list, got object'],
    ];
    it.each(cases)('%s', (_label, condition, expected) => {
      expect(jobIssues({ filter: [{ field: 'active', op: 'eq', value: true }, condition] })).toEqual(
        expected === undefined ? [] : [`jobs: jobs[1].filter[1].${expected}`],
      );
    });

    it('applies the same rules to softDelete', () => {
      expect(jobIssues({ softDelete: { field: 'deleted', op: 'in', value: true } })).toEqual([
        'jobs: jobs[1].softDelete.value: op "in" needs a list value',
      ]);
      expect(jobIssues({ softDelete: { field: 'deleted', op: 'eq', value: true } })).toEqual([]);
    });
  });
  describe('push', () => {
    /** Issue lines with the second job's source (`erp`) of `type`, and its mapping keyed by `key`. */
    function pushIssues(type: 'dataverse' | 'businesscentral', key: string[], patch: Record<string, unknown>): string[] {
      const raw = validRawConfig();
      raw.connections[1] = type === 'dataverse' ? { name: 'erp', type, settings: { url: 'https://contoso.crm4.dynamics.com' } } : { name: 'erp', type, settings: { company: 'CRONUS', tenantId: 'contoso' } };
      Object.assign(raw.mappings[1].source as object, { key });
      Object.assign(raw.jobs[1], patch);
      return issueLines(() => validateConfig(raw));
    }

    it('accepts a generic and a dataverse push block with its defaults', () => {
      expect(jobIssues({ skipOutdatedMessages: true, push: { secret: 'HOOK_SECRET', clientState: 'HOOK_STATE' } })).toEqual([]);
      expect(pushIssues('dataverse', ['crm_id'], { skipOutdatedMessages: true, push: { format: 'dataverse', table: 'account', organizationId: '4ef5b371-e89e-e711-8122-000d3aa2331c', imageMissingIsNull: true } })).toEqual([]);
      expect(jobIssues({ skipOutdatedMessages: true, push: { format: 'dataverse', table: 'Accounts' } })).toEqual([
        'jobs: jobs[1].push.table: expected a table logical name (lower case letters, digits and _), e.g. account',
      ]);
      expect(jobIssues({ skipOutdatedMessages: true, push: { table: 'account' } })).toEqual(['jobs: jobs[1].push.table: only allowed when format is dataverse']);
    });

    it('requires skipOutdatedMessages, since a pushed copy can arrive after a newer polled one', () => {
      expect(jobIssues({ push: {} })).toEqual([
        'jobs: jobs[1].skipOutdatedMessages: must be true when push is set (a pushed change can arrive after a newer one of its record was polled and applied)',
      ]);
    });

    it('names a secret that is typed in instead of its app setting, without echoing it', () => {
      expect(jobIssues({ skipOutdatedMessages: true, push: { secret: 'hunter2!' } })).toEqual([
        'jobs: jobs[1].push.secret: must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
      ]);
    });

    it('keeps each format to its own options and checks the limits', () => {
      expect(jobIssues({ skipOutdatedMessages: true, push: { format: 'dataverse', clientState: 'X' } })).toEqual(['jobs: jobs[1].push.clientState: only allowed when format is generic or businesscentral']);
      expect(jobIssues({ skipOutdatedMessages: true, push: { organizationId: '4ef5b371-e89e-e711-8122-000d3aa2331c' } })).toEqual([
        'jobs: jobs[1].push.organizationId: only allowed when format is dataverse',
      ]);
      expect(jobIssues({ skipOutdatedMessages: true, push: { format: 'dataverse', organizationId: 'org' } })).toEqual([
        "jobs: jobs[1].push.organizationId: expected a GUID (the environment's organization id)",
      ]);
      expect(jobIssues({ skipOutdatedMessages: true, push: { maxAgeSeconds: 0 } })).toEqual(['jobs: jobs[1].push.maxAgeSeconds: must be at least 1']);
      expect(jobIssues({ skipOutdatedMessages: true, push: { format: 'sap' } })).toEqual(['jobs: jobs[1].push.format: expected one of "generic", "dataverse", "businesscentral"; got "sap"']);
      expect(jobIssues({ skipOutdatedMessages: true, push: { secrt: 'X' } })).toEqual(['jobs: jobs[1].push.secrt: unknown property; did you mean secret?']);
    });

    it('needs a notification URL for Business Central and takes its client state', () => {
      expect(jobIssues({ skipOutdatedMessages: true, push: { format: 'businesscentral', clientState: 'BC_STATE' } })).toEqual([
        'jobs: jobs[1].push.notificationUrl: required when format is businesscentral (the URL subscriptions are created with)',
      ]);
      expect(pushIssues('businesscentral', ['id'], { skipOutdatedMessages: true, push: { format: 'businesscentral', clientState: 'BC_STATE', notificationUrl: 'BC_URL', maxAgeSeconds: 129600 } })).toEqual([]);
      expect(jobIssues({ skipOutdatedMessages: true, push: { notificationUrl: 'BC_URL' } })).toEqual(['jobs: jobs[1].push.notificationUrl: only allowed when format is businesscentral']);
      expect(jobIssues({ skipOutdatedMessages: true, push: { format: 'businesscentral', notificationUrl: 'https://x/api/hooks/j?code=k' } })).toEqual([
        'jobs: jobs[1].push.notificationUrl: must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
      ]);
    });

    it('needs a source of its format, and a source key it can address a pushed row by', () => {
      const raw = validRawConfig();
      Object.assign(raw.jobs[1], { skipOutdatedMessages: true, push: { format: 'businesscentral', notificationUrl: 'BC_URL' } });
      expect(issueLines(() => validateConfig(raw))).toEqual([
        'jobs: jobs[1].push.format: businesscentral needs a businesscentral source; connection "erp" is of type sqlite',
        'jobs: jobs[1].mapping: mapping "numbers": source key must be [id] for push.format businesscentral (a deleted record is known by its id only), got [crm_id]',
      ]);
      Object.assign(raw.jobs[1], { push: { format: 'dataverse' } });
      expect(issueLines(() => validateConfig(raw))).toEqual(['jobs: jobs[1].push.format: dataverse needs a dataverse source; connection "erp" is of type sqlite']);
    });

    it('is only for NewUpdate jobs', () => {
      expect(jobIssues({ skipOutdatedMessages: true, action: 'Delete', push: {} })).toEqual([
        'jobs: jobs[1].push: only allowed when action is NewUpdate (a pushed delete becomes a Delete message of the same job)',
      ]);
    });
  });
});
