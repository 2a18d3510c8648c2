import type { DescriberFactory } from '../base/entity-describer';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import { MetadataDescriber } from '../odata/odata-describe';
import { BC_MAX_CONCURRENCY } from './bc-connectors';
import { companyServiceRoot } from './bc-company';
import { BC_SCOPE, businessCentralApiRoot, type BusinessCentralSettings } from './bc-settings';

/**
 * The describer of `businesscentral` connections: the `$metadata` of the API route (v2.0 or a
 * custom API; it declares every entity set of the route, `customers`, `salesInvoices`, …), and on
 * connect the company, found as the connector finds it (a wrong company name fails the check).
 * `overrides` replace the transport (tests).
 */
export function createBusinessCentralDescriber(overrides?: OdataTransportOverrides): DescriberFactory {
  return (ctx) => {
    const settings = ctx.connection.settings as unknown as BusinessCentralSettings;
    const label = `businesscentral connection "${ctx.connection.name}"`;
    const open = openOdataConnection(ctx, { type: 'businesscentral', defaultScope: BC_SCOPE, overrides, maxConcurrencyCap: BC_MAX_CONCURRENCY });
    const api = open(businessCentralApiRoot(settings));
    return new MetadataDescriber({ http: api, connect: () => companyServiceRoot(api, settings.company, label) });
  };
}

/** Loaded on first use by connectors/describers.ts (`require`, out of knip's sight). @public */
export const openBusinessCentralDescriber: DescriberFactory = createBusinessCentralDescriber();
