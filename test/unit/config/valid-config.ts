import { ConfigValidationError } from '../../../src/platform/config-issue';

/**
 * A small valid configuration as raw input (what a file or table holds), for tests to break
 * one property at a time. Each call returns a fresh copy.
 */
export interface RawConfig {
  connections: Array<Record<string, unknown>>;
  mappings: Array<Record<string, unknown>>;
  jobs: Array<Record<string, unknown>>;
}

export function validRawConfig(): RawConfig {
  return {
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } },
      { name: 'erp', type: 'sqlite', settings: { file: './erp.db' } },
    ],
    mappings: [
      {
        name: 'accounts',
        source: { entity: 'accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
        ],
        responseMapping: [{ from: 'customer_no', to: 'erp_number' }],
      },
      {
        name: 'numbers',
        source: { entity: 'customers', key: ['crm_id'] },
        target: { entity: 'accounts', key: ['id'] },
        fields: [
          { target: 'id', source: 'crm_id' },
          { target: 'erp_number', source: 'customer_no' },
        ],
      },
    ],
    jobs: [
      {
        name: 'accounts-to-erp',
        schedule: '*/10 * * * * *',
        source: 'crm',
        target: 'erp',
        mapping: 'accounts',
        watermark: { type: 'datetime', field: 'modified_at' },
        responseJob: 'numbers-to-crm',
      },
      {
        name: 'numbers-to-crm',
        schedule: '*/10 * * * * *',
        source: 'erp',
        target: 'crm',
        mapping: 'numbers',
        watermark: { type: 'datetime', field: 'modified_at' },
      },
    ],
  };
}

/** The lines of the validation error's message (`file: path: message`), or [] when it passes. */
export function issueLines(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (err) {
    if (!(err instanceof ConfigValidationError)) throw err;
    return err.message.split('\n');
  }
}
