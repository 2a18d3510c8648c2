import { z } from 'zod';
import type { Connection } from '../model/connection';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Pair } from '../model/pair';
import { connectionSchema, typedConnectionSchema } from './connection-schema';
import { jobSchema } from './job-schema';
import { mappingSchema } from './mapping-schema';
import { pairSchema, pairsFileSchema } from './pair-schema';
import { requeueFileSchema } from './requeue-schema';
import { configSchemaRegistry, documented } from './schema-common';

/**
 * The one configuration schema. Item schemas validate and fill defaults; the file schemas
 * describe the files of a config folder (`{ connections: [...] }`, `{ mappings: [...] }`,
 * `{ jobs: [...] }` and the optional `{ pairs: [...] }`) for the generated JSON Schema.
 */

export { configSchemaRegistry };

export type ConfigKind = 'connections' | 'mappings' | 'jobs' | 'pairs';
/** Every kind, in file order (referenced kinds first). */
export const CONFIG_KINDS: readonly ConfigKind[] = ['connections', 'mappings', 'jobs', 'pairs'];
/** Kinds whose file a config folder may leave out (none of them: an empty list). */
export const OPTIONAL_CONFIG_KINDS: ReadonlySet<ConfigKind> = new Set<ConfigKind>(['pairs']);

export const ITEM_SCHEMAS = {
  connections: connectionSchema,
  mappings: mappingSchema,
  jobs: jobSchema,
  pairs: pairSchema,
} as const;

/** Optional pointer to this schema, so that editors find it in JSON files. */
const schemaPointer = documented(z.string().optional(), 'Path or URL of highwater-config.schema.json (for editors).');

const connectionsFileSchema = documented(
  z.strictObject({ $schema: schemaPointer, connections: z.array(typedConnectionSchema) }),
  'connections.(json|yaml|yml): the systems Highwater reads from and writes to.',
  'ConnectionsFile',
);

const mappingsFileSchema = documented(
  z.strictObject({ $schema: schemaPointer, mappings: z.array(mappingSchema) }),
  'mappings.(json|yaml|yml): how source records become target records.',
  'MappingsFile',
);

const jobsFileSchema = documented(
  z.strictObject({ $schema: schemaPointer, jobs: z.array(jobSchema) }),
  'jobs.(json|yaml|yml): scheduled sync jobs.',
  'JobsFile',
);

export const configFileSchema = z
  .union([connectionsFileSchema, mappingsFileSchema, jobsFileSchema, pairsFileSchema, requeueFileSchema])
  .register(configSchemaRegistry, {
    title: 'Highwater configuration file',
    description: 'One file of a Highwater config folder: connections, mappings, jobs or (optional) pairs or requeue.',
  });

/**
 * Compile-time proof that validation yields the model types: the output is assignable to the
 * model and has no property the model lacks (defaults make some optional properties required).
 */
type Yields<Output, Model> = [Output] extends [Model] ? ([Exclude<keyof Output, keyof Model>] extends [never] ? true : false) : false;
const proofs: [
  Yields<z.output<typeof connectionSchema>, Connection>,
  Yields<z.output<typeof mappingSchema>, Mapping>,
  Yields<z.output<typeof jobSchema>, Job>,
  Yields<z.output<typeof pairSchema>, Pair>,
] = [true, true, true, true];
void proofs;
