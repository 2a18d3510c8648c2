import type { DescriberFactory } from '../base/entity-describer';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import { MetadataDescriber } from '../odata/odata-describe';
import { dataverseServiceRoot, type DataverseSettings } from './dataverse-settings';

/**
 * The describer of `dataverse` connections: the Web API's `$metadata` (entity sets such as
 * `accounts`, their entity types' attributes as properties, the primary id as key). The document
 * holds every table of the environment (tens of megabytes): it is read once per check.
 * `overrides` replace the transport (tests).
 */
export function createDataverseDescriber(overrides?: OdataTransportOverrides): DescriberFactory {
  return (ctx) => {
    const settings = ctx.connection.settings as unknown as DataverseSettings;
    const open = openOdataConnection(ctx, { type: 'dataverse', defaultScope: `${new URL(settings.url).origin}/.default`, overrides });
    return new MetadataDescriber({ http: open(dataverseServiceRoot(settings)) });
  };
}

/** Loaded on first use by connectors/describers.ts (`require`, out of knip's sight). @public */
export const openDataverseDescriber: DescriberFactory = createDataverseDescriber();
