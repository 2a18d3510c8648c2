export { postgresConnectorFactory, sqlConnectorFactories, sqliteConnectorFactory } from './sql-connectors';
export type { PostgresSettings, SqliteSettings } from './sql-settings';
export { validatePostgresSettings, validateSqliteSettings } from './sql-settings';
