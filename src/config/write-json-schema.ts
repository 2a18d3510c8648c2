import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { JSON_SCHEMA_PATH, renderConfigJsonSchema } from './json-schema';

/**
 * Writes the config JSON Schema to `schema/highwater-config.schema.json` under the current
 * folder (run from the repository root), or to the path given as the first argument:
 * `node dist/src/config/write-json-schema.js [out.json]`.
 */
export function writeConfigJsonSchema(target: string): void {
  writeFileSync(target, renderConfigJsonSchema(), 'utf8');
}

if (require.main === module) {
  const target = path.resolve(process.argv[2] ?? JSON_SCHEMA_PATH);
  writeConfigJsonSchema(target);
  console.log(`wrote ${target}`);
}
