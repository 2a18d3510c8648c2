import { z } from 'zod';
import { scheduleSchema, watermarkSchema } from './job-schema';
import { sourceOperationSchema } from './mapping-schema';
import { documented, filterConditionSchema, nonEmptyString, objectName } from './schema-common';

/**
 * The schema of a two-way pair (see docs/two-way.md and `Pair` in src/model/pair.ts). It checks
 * each pair on its own terms and fills defaults; what needs the pair as a whole or the rest of
 * the configuration (shared key, inverses, connections, name collisions) is in pair-rules.ts.
 */

/** Every minute, at second 0. */
const DEFAULT_PAIR_SCHEDULE = '0 * * * * *';

const pairSideSchema = documented(
  z.strictObject({
    connection: documented(nonEmptyString(), 'Connection name.'),
    entity: documented(nonEmptyString(), 'Table or entity set.'),
    key: documented(z.array(nonEmptyString()).min(1), 'Key fields of the record on this side; their values joined with | are its key.'),
    watermark: watermarkSchema,
    filter: documented(z.array(filterConditionSchema).optional(), 'Only records matching all of these take part. Default none.'),
    softDelete: documented(filterConditionSchema.optional(), 'Records matching this condition count as deleted on this side. Default none.'),
    modifiedBy: documented(
      z
        .strictObject({
          field: documented(nonEmptyString(), 'Field holding who last changed the record.'),
          value: documented(nonEmptyString(), "Highwater's own user as that field holds it."),
        })
        .optional(),
      'Who last changed the record, when the system records it: a second echo signal, never the only one.',
    ),
  }),
  "One side of a pair: the records, their key and the change tracker this side's job reads past.",
  'PairSide',
);

const operationsSchema = (way: string) => documented(z.array(sourceOperationSchema).optional(), `Operations applied on the way ${way}.`);

const pairFieldSchema = documented(
  z.strictObject({
    a: documented(nonEmptyString(), 'Field on side a.'),
    b: documented(nonEmptyString(), 'Field on side b.'),
    direction: documented(z.enum(['both', 'toB', 'toA']).default('both'), 'Which way the field flows: both, toB or toA. Default both.'),
    toB: operationsSchema('a→b; on a field flowing both ways only a single valueMap that maps no two values to one and has no default'),
    toA: operationsSchema('b→a; derived as the inverse of toB when not given'),
    conflict: documented(z.enum(['a', 'b', 'newest', 'manual']).optional(), "Overrides the pair's conflict policy for this field."),
  }),
  'One field kept equal on both sides (or carried one way).',
  'PairField',
);

const pairMatchFieldSchema = documented(
  z.strictObject({
    a: documented(nonEmptyString(), 'Field on side a (one of the pair fields).'),
    b: documented(nonEmptyString(), 'Field on side b (one of the pair fields).'),
    ignoreCase: documented(z.boolean().default(false), 'Compare case-insensitively (and trimmed). Default false.'),
  }),
  'Fields compared to couple records that exist on both sides before the first sync.',
  'PairMatchField',
);

export const pairSchema = documented(
  z.strictObject({
    name: documented(objectName('pair'), 'Unique pair name; its two jobs and mappings are named <name>.a-to-b and <name>.b-to-a.'),
    a: pairSideSchema,
    b: pairSideSchema,
    fields: z.array(pairFieldSchema).min(1),
    schedule: documented(scheduleSchema.default(DEFAULT_PAIR_SCHEDULE), `6-field NCRONTAB of both jobs. Default "${DEFAULT_PAIR_SCHEDULE}" (every minute).`),
    enabled: documented(z.boolean().default(true), 'Disabled pairs are never due. Default true.'),
    priority: documented(z.enum(['high', 'normal', 'low']).default('normal'), "Work queue for both jobs' messages. Default normal."),
    conflicts: documented(
      z.enum(['a', 'b', 'newest', 'manual']).default('newest'),
      'Who wins a field both sides changed since the last sync: a, b, newest (both watermarks must be datetime) or manual. Default newest.',
    ),
    deletes: documented(
      z.enum(['propagate', 'restore', 'uncouple']).default('propagate'),
      'What a delete on one side does: propagate, restore or uncouple. Default propagate.',
    ),
    match: documented(
      z.array(pairMatchFieldSchema).min(1).optional(),
      'Initial coupling of records on both sides by these fields. Default none: records are coupled by their keys only.',
    ),
  }),
  'A two-way pair: one kind of record kept equal on two systems (see docs/two-way.md).',
  'Pair',
);

/** Optional pointer to the schema, as in the other files. */
const schemaPointer = documented(z.string().optional(), 'Path or URL of highwater-config.schema.json (for editors).');

export const pairsFileSchema = documented(
  z.strictObject({ $schema: schemaPointer, pairs: z.array(pairSchema) }),
  'pairs.(json|yaml|yml), optional: two-way sync pairs.',
  'PairsFile',
);
