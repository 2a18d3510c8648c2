import { ConnectorRegistry } from './base/registry';
import { sqlConnectorFactories } from './sql';

/** Every connector type Highwater ships, registered. */
export function defaultConnectorRegistry(): ConnectorRegistry {
  return new ConnectorRegistry([...sqlConnectorFactories]);
}
