import { contextClock } from '../base/connector-context';
import type { ConnectorFactory } from '../base/registry';
import { statusOf } from '../odata/delta-reader';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import { OdataSource } from '../odata/odata-source';
import { dataverseColumns, readTypes } from './dataverse-columns';
import { DataverseTarget } from './dataverse-target';
import { dataverseServiceRoot, type DataverseSettings, dataverseSettingsSchema, validateDataverseSettings } from './dataverse-settings';

/** Dataverse's error code for a change-tracking token past its retention ("Version stamp associated with the client has expired"). */
const EXPIRED_VERSION_STAMP = '0x80044352';

/** Whether a failed delta-link read means the link expired: Dataverse's ExpiredVersionStamp, or 410 Gone. */
function isExpiredDataverseDelta(err: unknown): boolean {
  const details = err && typeof err === 'object' && 'details' in err ? (err.details as { serviceCode?: unknown }) : undefined;
  return details?.serviceCode === EXPIRED_VERSION_STAMP || statusOf(err) === 410;
}

/** The read types of each source connection's tables (a connection's sources share them). */
const SOURCE_TABLES = new WeakMap<object, Map<string, Promise<ReadonlyMap<string, string>>>>();

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
    createSource: (ctx) => {
      const { http } = open(ctx);
      // Each table's column definitions (not $metadata, which holds every table), once per
      // connection: image columns read as bytes, BigInt strings as numbers where a double holds them.
      let tables = SOURCE_TABLES.get(ctx.connection);
      if (!tables) SOURCE_TABLES.set(ctx.connection, (tables = new Map()));
      const kept = tables;
      const columnTypes = (set: string) => {
        let types = kept.get(set);
        if (!types) {
          types = dataverseColumns(http, set).then(readTypes);
          kept.set(set, types);
          types.catch(() => kept.delete(set));
        }
        return types;
      };
      return new OdataSource({ http, clock: contextClock(ctx), delta: { isExpired: isExpiredDataverseDelta, warn: ctx.warn }, columnTypes });
    },
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
