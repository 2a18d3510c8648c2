import type { DescriberEntry } from './base/entity-describer';

/*
 * Loaded when a check opens a connection of the type, as the connectors themselves are
 * (`require`: a check of a sqlite-only configuration never loads `pg`).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const sql = () => require('./sql/sql-describe') as typeof import('./sql/sql-describe');
const odata = () => require('./odata/odata-describe') as typeof import('./odata/odata-describe');
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Per connection type: how `highwater check` reads its entities, or which checks it skips and
 * why (printed as a notice). Dataverse and Business Central serve `$metadata` documents of many
 * megabytes (every table of the environment) that the OData code here does not read: for them
 * the check stops at the secrets and the connection settings.
 */
export const DESCRIBERS: Readonly<Record<string, DescriberEntry>> = {
  sqlite: { open: (ctx) => sql().openSqliteDescriber(ctx) },
  postgres: { open: (ctx) => sql().openPostgresDescriber(ctx) },
  odata: { open: (ctx) => odata().openOdataDescriber(ctx) },
  dataverse: { skipped: 'tables, columns, the watermark column and keys are not checked for dataverse connections (their $metadata is not read); secrets are' },
  businesscentral: { skipped: 'entity sets, fields, the watermark field and keys are not checked for businesscentral connections (their $metadata is not read); secrets are' },
};
