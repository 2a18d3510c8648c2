import { contextClock } from '../base/connector-context';
import type { ConnectorFactory } from '../base/registry';
import { statusOf } from '../odata/delta-reader';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import { OdataSource } from '../odata/odata-source';
import { DataverseTarget } from './dataverse-target';
import { dataverseServiceRoot, type DataverseSettings, dataverseSettingsSchema, validateDataverseSettings } from './dataverse-settings';

/** Dataverse's error code for a change-tracking token past its retention ("Version stamp associated with the client has expired"). */
export const EXPIRED_VERSION_STAMP = '0x80044352';

/** Whether a failed delta-link read means the link expired: Dataverse's ExpiredVersionStamp, or 410 Gone. */
export function isExpiredDataverseDelta(err: unknown): boolean {
  const details = err && typeof err === 'object' && 'details' in err ? (err.details as { serviceCode?: unknown }) : undefined;
  return details?.serviceCode === EXPIRED_VERSION_STAMP || statusOf(err) === 410;
}

/**
 * `dataverse`: Dataverse / Dynamics 365 (Web API); source (watermark on e.g. `modifiedon`, or
 * change tracking with `watermark.field: "@odata.deltaLink"`) and target (alternate-key upsert,
 * lookup binds, `$batch`). `overrides` replace the transport (tests).
 */
export function createDataverseConnectorFactory(overrides?: OdataTransportOverrides): ConnectorFactory {
  const open = (ctx: Parameters<NonNullable<ConnectorFactory['createSource']>>[0]) => {
    const settings = ctx.connection.settings as unknown as DataverseSettings;
    const client = openOdataConnection(ctx, { type: 'dataverse', defaultScope: `${new URL(settings.url).origin}/.default`, overrides });
    return { settings, http: client(dataverseServiceRoot(settings)) };
  };
  return {
    type: 'dataverse',
    validateSettings: validateDataverseSettings,
    settingsSchema: dataverseSettingsSchema,
    createSource: (ctx) => new OdataSource({ http: open(ctx).http, clock: contextClock(ctx), delta: { isExpired: isExpiredDataverseDelta, warn: ctx.warn } }),
    createTarget: (ctx) => {
      const { settings, http } = open(ctx);
      return new DataverseTarget({
        http,
        label: `dataverse connection "${ctx.connection.name}"`,
        lookups: settings.lookups,
        batchSize: settings.batchSize,
        versionField: settings.versionField,
        upsertMultiple: settings.upsertMultiple,
        warn: ctx.warn,
      });
    },
  };
}

export const dataverseConnectorFactory: ConnectorFactory = createDataverseConnectorFactory();
