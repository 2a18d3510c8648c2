export { buildBatch, parseBatch } from '../odata/batch-multipart';
export { createDataverseConnectorFactory } from './dataverse-connectors';
export { validateDataverseSettings } from './dataverse-settings';
