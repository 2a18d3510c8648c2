import { runSourceConnectorContract } from '../../contract/source-connector.contract';
import { businessCentralSourceHarness } from '../../contract/source-connector/harnesses/business-central-harness';
import { dataverseSourceHarness } from '../../contract/source-connector/harnesses/dataverse-harness';

/**
 * The source connector contract on the systems that cannot run here, against recorded
 * exchanges (requests matched exactly, answers as the services write them).
 */
runSourceConnectorContract('Dataverse source, change tracking (recorded Web API exchanges)', async () => dataverseSourceHarness(), {
  unsupported: {
    lookback: 'change tracking has no time window: the stored delta link alone says what changed since',
  },
});

runSourceConnectorContract('Business Central source (recorded API v2.0 exchanges)', async () => businessCentralSourceHarness(), {
  unsupported: {
    deletes: 'a watermark read of BC API pages cannot see a removed record (removals come only through delta links; none recorded)',
    exactValues: 'the recorded API v2.0 route has no Edm.Int64 or Edm.Binary property and BC decimals cannot hold the matrix decimal; its reads are typed by the API route $metadata as odata sources are (readTypedRow, proven by the odata contract)',
    timeStamps: 'a watermark property cannot tell a timestamp-only change from a business change',
  },
});
