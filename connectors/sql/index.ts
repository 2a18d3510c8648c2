export { sqlConnectorFactories, sqliteConnectorFactory } from './sql-connectors';
