import { runTargetConnectorContract } from '../../contract/target-connector.contract';
import { capHarness } from '../../contract/target-connector/harnesses/cap-harness';

/**
 * The target connector contract on the OData target against a real SAP CAP 9 server, with each
 * `$batch` format. Its value matrix holds 64-bit integers and bytes: CAP over SQLite stores
 * Edm.Decimal as REAL and Timestamp to milliseconds, and has no JSON type (see the harness).
 */
for (const batchFormat of ['json', 'multipart'] as const) {
  runTargetConnectorContract(`OdataTarget on SAP CAP ($batch ${batchFormat})`, () => capHarness(batchFormat), {
    unsupported: {
      parent: "the CAP fixture has no association: Orders.book_ID is a plain Integer, and CAP checks no reference on write",
      required: 'the CAP fixture has no required property other than keys',
    },
  });
}
