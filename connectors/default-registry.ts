import { ConnectorRegistry } from './base/registry';
import { sqlConnectorFactories } from './sql';
import { businessCentralConnectorFactory } from './businesscentral';
import { dataverseConnectorFactory } from './dataverse';
import { odataConnectorFactory } from './odata';

/** Every connector type Highwater ships, registered. */
export function defaultConnectorRegistry(): ConnectorRegistry {
  return new ConnectorRegistry([...sqlConnectorFactories, odataConnectorFactory, dataverseConnectorFactory, businessCentralConnectorFactory]);
}
