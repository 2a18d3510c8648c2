import { openBusinessCentralPushClient, type BusinessCentralPushClient } from '../../connectors/businesscentral/bc-push-client';
import type { ConnectorProvider } from '../../connectors/connector-provider';
import { openDataverseRecordReader, type DataverseRecordReader } from '../../connectors/dataverse/dataverse-record-reader';
import { ConfigError } from '../platform/errors';

/**
 * The connector clients push uses beside the source and target: one per connection, opened on
 * first use, each refusing a connection of another type with a ConfigError.
 */
function perConnection<T>(connectors: Pick<ConnectorProvider, 'context'>, type: string, open: (ctx: ReturnType<ConnectorProvider['context']>) => T): (connectionName: string) => T {
  const clients = new Map<string, T>();
  return (name) => {
    let client = clients.get(name);
    if (!client) {
      const ctx = connectors.context(name);
      if (ctx.connection.type.trim().toLowerCase() !== type) {
        throw new ConfigError(`connection "${name}" is of type ${ctx.connection.type}; push.format ${type} needs a ${type} source`);
      }
      client = open(ctx);
      clients.set(name, client);
    }
    return client;
  };
}

/** Dataverse record readers (a pushed Create or Update without a usable post-image is read by id). */
export function dataverseRecordReaders(connectors: Pick<ConnectorProvider, 'context'>): (connectionName: string) => DataverseRecordReader {
  return perConnection(connectors, 'dataverse', (ctx) => openDataverseRecordReader(ctx));
}

/**
 * Business Central push clients, one per connection (its token and its limit of 5 requests in
 * flight shared by the record reads and the subscription calls of this process).
 * @returns a function that throws ConfigError for a connection that is not `businesscentral`.
 */
export function businessCentralPushClients(connectors: Pick<ConnectorProvider, 'context'>): (connectionName: string) => BusinessCentralPushClient {
  return perConnection(connectors, 'businesscentral', (ctx) => openBusinessCentralPushClient(ctx));
}
