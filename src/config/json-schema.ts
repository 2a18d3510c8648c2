import { z } from 'zod';
import { settingDocs } from '../../connectors/base/settings-schema';
import { configFileSchema, configSchemaRegistry } from './schema';

/**
 * The JSON Schema of config files, generated from the zod schema (the one source of truth) and
 * committed at {@link JSON_SCHEMA_PATH} for editor autocomplete. It describes the *input*:
 * properties with defaults are optional. Cross-entry rules (references, cycles, literal
 * secrets) are beyond JSON Schema and only checked by `validate`. Connector settings are each
 * type's settings schema (connectors/base/settings-schema.ts); their descriptions and documented
 * defaults live in the connectors' own registry, read here beside the config's.
 */

/** Where the generated schema is committed, relative to the repository root. */
export const JSON_SCHEMA_PATH = 'schema/highwater-config.schema.json';

/** How to regenerate the committed file (quoted in the test that compares it). */
export const REGENERATE_COMMAND = 'npm run build && node dist/src/config/write-json-schema.js';

export function buildConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configFileSchema, {
    // draft-07: the version editors' YAML and JSON language servers support best.
    target: 'draft-7',
    io: 'input',
    metadata: configSchemaRegistry,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const doc = settingDocs.get(zodSchema);
      if (!doc) return;
      jsonSchema.description ??= doc.description;
      if (doc.default !== undefined) jsonSchema.default ??= doc.default;
    },
  }) as Record<string, unknown>;
}

/** The schema file's exact text: two-space JSON with a trailing newline. */
export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(buildConfigJsonSchema(), null, 2)}\n`;
}
