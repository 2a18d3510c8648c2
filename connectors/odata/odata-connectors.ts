import { contextClock } from '../base/connector-context';
import type { ConnectorFactory } from '../base/registry';
import { openOdataConnection, type OdataTransportOverrides } from './odata-connection';
import { type OdataSettings, odataSettingsSchema, validateOdataSettings } from './odata-settings';
import { OdataSource } from './odata-source';
import { OdataTarget } from './odata-target';

/**
 * `odata`: any OData V4 service; source and target. `overrides` replace the transport (tests:
 * a recorded or interposed `fetch`, a token provider that never reaches Entra ID).
 */
export function createOdataConnectorFactory(overrides?: OdataTransportOverrides): ConnectorFactory {
  const open = (settings: OdataSettings, ctx: Parameters<NonNullable<ConnectorFactory['createSource']>>[0]) =>
    openOdataConnection(ctx, {
      type: 'odata',
      defaultScope: `${new URL(settings.serviceUrl).origin}/.default`,
      overrides,
      ieee754Compatible: settings.ieee754Compatible ?? true,
    })(settings.serviceUrl);
  return {
    type: 'odata',
    validateSettings: validateOdataSettings,
    settingsSchema: odataSettingsSchema,
    createSource: (ctx) =>
      new OdataSource({ http: open(ctx.connection.settings as unknown as OdataSettings, ctx), clock: contextClock(ctx), delta: { warn: ctx.warn }, typedValues: true }),
    createTarget: (ctx) => {
      const settings = ctx.connection.settings as unknown as OdataSettings;
      return new OdataTarget({
        http: open(settings, ctx),
        label: `odata connection "${ctx.connection.name}"`,
        upsertMode: settings.upsertMode,
        entityKeys: settings.entityKeys,
        versionField: settings.versionField,
        batchFormat: settings.batchFormat,
        batchSize: settings.batchSize,
        typedValues: true,
        warn: ctx.warn,
      });
    },
  };
}

export const odataConnectorFactory: ConnectorFactory = createOdataConnectorFactory();
