export { companyServiceRoot } from './bc-company';
export { businessCentralConnectorFactory, createBusinessCentralConnectorFactory } from './bc-connectors';
export { BC_SCOPE, businessCentralApiRoot, type BusinessCentralSettings, validateBusinessCentralSettings } from './bc-settings';
