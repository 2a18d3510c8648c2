import { z } from 'zod';
import { defaultConnectorRegistry } from '../../connectors/default-registry';
import { formatPath } from '../platform/config-issue';
import { configSchemaRegistry, documented, nonEmptyString, objectName } from './schema-common';

/** The connector types Highwater ships: the JSON Schema describes their settings. */
const SHIPPED = defaultConnectorRegistry();

/** App setting / environment variable names: what a secret reference must look like. */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const secretReference = documented(
  z.string().regex(ENV_VAR_NAME, {
    // The value may be a secret typed into the wrong place: the message must not echo it.
    message: 'must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
  }),
  'Name of the app setting (environment variable) that holds the secret.',
);

export const connectionSchema = documented(
  z
    .strictObject({
      name: objectName('connection'),
      type: documented(nonEmptyString(), `Connector kind: ${SHIPPED.types().join(', ')}.`),
      settings: documented(
        z.record(z.string(), z.unknown()).default({}),
        "The connector's own settings. No secrets here: reference them in `secrets`.",
      ),
      secrets: documented(
        z.record(z.string(), secretReference).default({}),
        'Connector setting → name of the app setting (env var) holding its secret value, e.g. { password: CRM_PASSWORD }.',
      ),
      maxConcurrency: documented(
        z.number().int().positive().default(8),
        'Most requests in flight at once against this system. Default 8.',
      ),
    })
    .superRefine((connection, ctx) => {
      for (const key of Object.keys(connection.secrets)) {
        if (Object.prototype.hasOwnProperty.call(connection.settings, key)) {
          ctx.addIssue({
            code: 'custom',
            path: ['secrets', key],
            message: `${formatPath(['settings', key])} is also set; a setting is either a literal in settings or a reference in secrets`,
          });
        }
      }
    }),
  'A connection to a source or target system.',
  'Connection',
);

/** `sqlite` → `SqliteSettings`: the settings' id among the JSON Schema's definitions. */
function settingsId(type: string): string {
  return `${type.charAt(0).toUpperCase()}${type.slice(1)}Settings`;
}

/** A connection of one type: its `type`, and `settings` as the type's schema says (left out only when `{}` passes). */
function typeVariant(type: string, settings: z.ZodType) {
  configSchemaRegistry.add(settings, { id: settingsId(type) });
  return z.looseObject({ type: z.literal(type), settings: settings.safeParse({}).success ? settings.optional() : settings });
}

function settingsByType(schemas: Record<string, z.ZodType>) {
  const variants = Object.entries(schemas).map(([type, settings]) => typeVariant(type, settings));
  if (variants.length === 0) throw new Error('no connector type has a settings schema');
  return z.discriminatedUnion('type', variants as [(typeof variants)[number], ...typeof variants]);
}

/**
 * A connection's `settings` by its `type`: a discriminated union of the shipped connector types'
 * settings schemas (the registry's). Config validation does not parse with it: the connector
 * types are its option (`validateConfig({ connectionTypes })`, any type accepted when absent), so
 * an unknown type still reads `unknown connection type "…" (known: …)`; the types' validators
 * check with these very schemas, in their own words.
 */
const connectionSettingsSchema = documented(
  settingsByType(SHIPPED.settingsSchemas()),
  "The connector type's settings: each type's own, and no others.",
  'ConnectionSettings',
);

/**
 * A connection as the generated JSON Schema describes it (`connections.(json|yaml|yml)`): the
 * connection, and its settings as its type says, so that editors complete and check them.
 */
export const typedConnectionSchema = connectionSchema.and(connectionSettingsSchema);
