import { runSourceConnectorContract } from '../../contract/source-connector.contract';
import { capSourceHarness } from '../../contract/source-connector/harnesses/cap-harness';

/**
 * The source connector contract on the OData source against a real SAP CAP 9 server. Its value
 * matrix holds 64-bit integers and bytes: CAP over SQLite stores Edm.Decimal as REAL and
 * Timestamp to milliseconds, and has no JSON type (see the harness).
 */
runSourceConnectorContract('OdataSource on SAP CAP', capSourceHarness, {
  unsupported: {
    // odata.maxpagesize is a preference; CAP applies its @cds.query.limit (3) instead.
    pageSize: 'CAP serves pages of its @cds.query.limit (3), not the odata.maxpagesize asked for',
    timeStamps: 'a watermark property cannot tell a timestamp-only change from a business change',
  },
});
