export { type BatchAnswer, type BatchPart, buildBatch, parseBatch } from '../odata/batch-multipart';
export { createDataverseConnectorFactory, dataverseConnectorFactory, EXPIRED_VERSION_STAMP, isExpiredDataverseDelta } from './dataverse-connectors';
export { withLookupBinds } from './dataverse-lookups';
export { dataverseServiceRoot, type DataverseLookup, type DataverseSettings, validateDataverseSettings } from './dataverse-settings';
export { DataverseTarget, type DataverseTargetOptions } from './dataverse-target';
export { type BulkTable, UpsertMultiple, type UpsertMultipleOptions } from './upsert-multiple';
