export { mysqlConnectorFactory, postgresConnectorFactory, sqlConnectorFactories, sqliteConnectorFactory } from './sql-connectors';
export type { MysqlSettings, PostgresSettings, SqliteSettings } from './sql-settings';
export { validateMysqlSettings, validatePostgresSettings, validateSqliteSettings } from './sql-settings';
