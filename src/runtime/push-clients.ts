import { openBusinessCentralPushClient, type BusinessCentralPushClient } from '../../connectors/businesscentral/bc-push-client';
import type { ConnectorProvider } from '../../connectors/connector-provider';
import { ConfigError } from '../platform/errors';

/**
 * Business Central push clients, one per connection (its token and its limit of 5 requests in
 * flight shared by the record reads and the subscription calls of this process).
 * @returns a function that throws ConfigError for a connection that is not `businesscentral`.
 */
export function businessCentralPushClients(connectors: Pick<ConnectorProvider, 'context'>): (connectionName: string) => BusinessCentralPushClient {
  const clients = new Map<string, BusinessCentralPushClient>();
  return (name) => {
    let client = clients.get(name);
    if (!client) {
      const ctx = connectors.context(name);
      if (ctx.connection.type.trim().toLowerCase() !== 'businesscentral') {
        throw new ConfigError(`connection "${name}" is of type ${ctx.connection.type}; push.format businesscentral needs a businesscentral source`);
      }
      client = openBusinessCentralPushClient(ctx);
      clients.set(name, client);
    }
    return client;
  };
}
