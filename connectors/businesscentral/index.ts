export { createBusinessCentralConnectorFactory } from './bc-connectors';
export { validateBusinessCentralSettings } from './bc-settings';
