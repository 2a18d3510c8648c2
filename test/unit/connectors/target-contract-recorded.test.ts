import { runTargetConnectorContract } from '../../contract/target-connector.contract';
import { businessCentralHarness } from '../../contract/target-connector/harnesses/business-central-harness';
import { dataverseHarness } from '../../contract/target-connector/harnesses/dataverse-harness';

/**
 * The target connector contract on the systems that cannot run here, against recorded
 * exchanges (requests matched exactly, answers as the services write them).
 */
runTargetConnectorContract('DataverseTarget (recorded Web API exchanges)', async () => dataverseHarness(), {
  unsupported: {
    // Business-required columns are enforced by model-driven forms, not by the Web API.
    required: 'Dataverse does not enforce business-required columns on Web API writes',
    nullVersion: 'Dataverse sets modifiedon on every record',
  },
});

runTargetConnectorContract('Business Central target (recorded API v2.0 exchanges)', async () => businessCentralHarness(), {
  unsupported: {
    parent: 'no recorded BC exchange of a write that refers to a missing record (API pages validate references as field errors)',
    required: 'no recorded BC exchange of a create refused for a missing required field',
    nullVersion: 'Business Central sets lastModifiedDateTime on every record',
    exactValues: 'recorded exchanges compare bodies as parsed JSON, which cannot show 64-bit or long decimal digits; the typed writes (Decimal and Int64 digits as exact JSON numbers) are proven on the body text in test/unit/connectors/businesscentral/bc-typed-values.test.ts',
  },
});
