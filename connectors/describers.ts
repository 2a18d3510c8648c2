import type { DescriberEntry } from './base/entity-describer';

/*
 * Loaded when a check opens a connection of the type, as the connectors themselves are
 * (`require`: a check of a sqlite-only configuration never loads `pg`).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const sql = () => require('./sql/sql-describe') as typeof import('./sql/sql-describe');
const mysql = () => require('./sql/mysql-describe') as typeof import('./sql/mysql-describe');
const odata = () => require('./odata/odata-describe') as typeof import('./odata/odata-describe');
const dataverse = () => require('./dataverse/dataverse-describe') as typeof import('./dataverse/dataverse-describe');
const businessCentral = () => require('./businesscentral/bc-describe') as typeof import('./businesscentral/bc-describe');
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Per connection type: how `highwater check` reads its entities, or which checks it skips and
 * why (printed as a notice). The OData family reads its service's `$metadata` once per check
 * (Dataverse: the Web API's, every table of the environment; Business Central: the API route's).
 */
export const DESCRIBERS: Readonly<Record<string, DescriberEntry>> = {
  sqlite: { open: (ctx) => sql().openSqliteDescriber(ctx) },
  postgres: { open: (ctx) => sql().openPostgresDescriber(ctx) },
  mysql: { open: (ctx) => mysql().openMysqlDescriber(ctx) },
  odata: { open: (ctx) => odata().openOdataDescriber(ctx) },
  dataverse: { open: (ctx) => dataverse().openDataverseDescriber(ctx) },
  businesscentral: { open: (ctx) => businessCentral().openBusinessCentralDescriber(ctx) },
};
