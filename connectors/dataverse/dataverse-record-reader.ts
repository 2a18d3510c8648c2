import type { ConnectorContext } from '../base/connector-context';
import { PermanentError } from '../../src/platform/errors';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import { queryString } from '../odata/odata-literals';
import { dataverseServiceRoot, type DataverseSettings } from './dataverse-settings';

/**
 * Reads one Dataverse row by id, as the Web API returns it (`GET <entitySet>(<id>)?$select=…`):
 * what a pushed Create or Update without a usable post-image is completed with. Throws the
 * connector's classified errors (TransientError for an outage or throttling, ConfigError for a
 * refused credential or an unknown entity set or column).
 */
export interface DataverseRecordReader {
  /** The row's `columns` (Web API names: `_parentcustomerid_value` for a lookup); undefined when it is gone (404). */
  readRecord(entitySet: string, id: string, columns: readonly string[]): Promise<Record<string, unknown> | undefined>;
}

/** The reader of a `dataverse` connection. `overrides` replace the transport (tests). */
export function openDataverseRecordReader(ctx: ConnectorContext, overrides?: OdataTransportOverrides): DataverseRecordReader {
  const settings = ctx.connection.settings as unknown as DataverseSettings;
  const http = openOdataConnection(ctx, { type: 'dataverse', defaultScope: `${new URL(settings.url).origin}/.default`, overrides })(dataverseServiceRoot(settings));
  const label = `dataverse connection "${ctx.connection.name}"`;
  return {
    async readRecord(entitySet, id, columns) {
      const url = `${entitySet}(${id})${queryString([['$select', columns.join(',')]])}`;
      const response = await http.request({ method: 'GET', url, operation: `read ${entitySet}(${id})`, accept: [404], retryThrottled: true });
      if (response.status === 404) return undefined;
      if (!response.body) throw new PermanentError(`${label}: read ${entitySet}(${id}): the answer is not a JSON record (HTTP ${response.status})`);
      return response.body;
    },
  };
}
