import type { DescriberFactory, EntityDescriber, EntityDescription } from '../base/entity-describer';
import { openOdataConnection, type OdataTransportOverrides } from './odata-connection';
import type { OdataHttpClient } from './odata-http';
import type { OdataSettings } from './odata-settings';
import { serviceModel } from './service-model';

export interface MetadataDescriberOptions {
  /** The client whose service's `$metadata` names the entity sets. */
  http: OdataHttpClient;
  /** Where the document is, relative to the client's root. Default `$metadata`. */
  metadataUrl?: string;
  /** More to do on connect (e.g. resolve a Business Central company), failing as the connector would. */
  connect?: () => Promise<unknown>;
}

/**
 * Entity sets of an OData-family connection (`odata`, `dataverse`, `businesscentral`), from its
 * `$metadata` document: read once, on connect; every entity set is then described from it.
 */
export class MetadataDescriber implements EntityDescriber {
  readonly entityWord = 'entity set';

  constructor(private readonly options: MetadataDescriberOptions) {}

  async connect(): Promise<void> {
    await serviceModel(this.options.http, this.options.metadataUrl);
    await this.options.connect?.();
  }

  async describe(entity: string): Promise<EntityDescription | undefined> {
    return (await serviceModel(this.options.http, this.options.metadataUrl)).get(entity);
  }

  async close(): Promise<void> {}
}

/** The describer of `odata` connections; `overrides` replace the transport (tests). */
function createOdataDescriber(overrides?: OdataTransportOverrides): DescriberFactory {
  return (ctx) => {
    const settings = ctx.connection.settings as unknown as OdataSettings;
    const open = openOdataConnection(ctx, { type: 'odata', defaultScope: `${new URL(settings.serviceUrl).origin}/.default`, overrides });
    return new MetadataDescriber({ http: open(settings.serviceUrl) });
  };
}

/** Loaded on first use by connectors/describers.ts (`require`, out of knip's sight). @public */
export const openOdataDescriber: DescriberFactory = createOdataDescriber();
