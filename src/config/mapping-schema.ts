import { z } from 'zod';
import { timeZoneProblem } from '../platform/schedule';
import { documented, nonEmptyString, nullableScalarSchema, objectName } from './schema-common';

const fieldList = (description: string) => documented(z.array(nonEmptyString()).min(1), description);

export const sourceOperationSchema = documented(
  z.discriminatedUnion('op', [
    z.strictObject({ op: z.literal('trim') }),
    z.strictObject({ op: z.literal('upper') }),
    z.strictObject({ op: z.literal('lower') }),
    z.strictObject({
      op: z.literal('concat'),
      fields: fieldList('Other source fields whose values are appended to the current value.'),
      separator: z.string().optional(),
    }),
    z.strictObject({
      op: z.literal('formatDate'),
      format: documented(nonEmptyString(), 'luxon format string, e.g. yyyy-MM-dd.'),
      zone: nonEmptyString()
        .superRefine((zone, ctx) => {
          const problem = timeZoneProblem(zone);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
    }),
    z.strictObject({ op: z.literal('formatNumber'), decimals: z.number().int().min(0).max(20) }),
    z.strictObject({ op: z.literal('default'), value: nullableScalarSchema }),
    z.strictObject({ op: z.literal('constant'), value: nullableScalarSchema }),
    z.strictObject({
      op: z.literal('valueMap'),
      map: z.record(z.string(), nullableScalarSchema),
      default: nullableScalarSchema.optional(),
    }),
  ]),
  'A transformation applied to the mapped value; operations run in order.',
  'SourceOperation',
);

const resolverSchema = documented(
  z.strictObject({
    entity: documented(nonEmptyString(), 'Source entity (table) to look in.'),
    matchField: documented(nonEmptyString(), 'Field in entity compared to the mapped value.'),
    returnField: documented(nonEmptyString(), 'Field in entity whose value replaces the mapped value.'),
    onMissing: documented(
      z.enum(['null', 'transitive', 'error']).default('null'),
      'No match: null yields null (default); transitive stops the job\'s run before this row and tries it again next run (the dependency may still arrive); error stops the job\'s run until the row is fixed. Either way the watermark does not pass the row.',
    ),
  }),
  'Looks up a related value in the source system (cached per run).',
  'Resolver',
);

const fieldMappingSchema = documented(
  z
    .strictObject({
      target: documented(nonEmptyString(), 'Target field.'),
      source: documented(nonEmptyString().optional(), 'Source field (omit when constant is given).'),
      constant: documented(nullableScalarSchema.optional(), 'Fixed value (omit when source is given).'),
      operations: z.array(sourceOperationSchema).optional(),
      resolver: resolverSchema.optional(),
    })
    .superRefine((field, ctx) => {
      const hasSource = field.source !== undefined;
      const hasConstant = field.constant !== undefined;
      if (hasSource && hasConstant) ctx.addIssue({ code: 'custom', message: 'give either source or constant, not both' });
      if (!hasSource && !hasConstant) ctx.addIssue({ code: 'custom', message: 'give source or constant' });
    }),
  'Maps one source field (or a constant) to one target field.',
  'FieldMapping',
);

const responseFieldMappingSchema = z.strictObject({
  from: documented(nonEmptyString(), 'Field the target returned (e.g. a generated number).'),
  to: documented(nonEmptyString(), "Field of the response job's target (usually the original source record)."),
});

export const mappingSchema = documented(
  z
    .strictObject({
      name: objectName('mapping'),
      source: z.strictObject({
        entity: documented(nonEmptyString(), 'Source entity (table, entity set).'),
        key: fieldList("Source key fields; their values joined with | make the message's sourceKey."),
      }),
      target: z.strictObject({
        entity: documented(nonEmptyString(), 'Target entity (table, entity set).'),
        key: fieldList('Target key / alternate key fields, taken from the mapped fields of the same name.'),
        versionField: documented(
          nonEmptyString().optional(),
          "Target field holding the record's change tracker, read for skipOutdatedMessages. Default: the connection's settings.versionField.",
        ),
      }),
      fields: z.array(fieldMappingSchema).min(1),
      responseMapping: documented(
        z.array(responseFieldMappingSchema).min(1).optional(),
        "Target fields written back to the source through the job's responseJob.",
      ),
    })
    .superRefine((mapping, ctx) => {
      const firstIndex = new Map<string, number>();
      mapping.fields.forEach((field, i) => {
        const earlier = firstIndex.get(field.target);
        if (earlier === undefined) firstIndex.set(field.target, i);
        else ctx.addIssue({ code: 'custom', path: ['fields', i, 'target'], message: `duplicate target field "${field.target}" (also fields[${earlier}])` });
      });
      mapping.target.key.forEach((key, i) => {
        // With no fields at all, that one issue says it all.
        if (mapping.fields.length > 0 && !firstIndex.has(key)) {
          ctx.addIssue({ code: 'custom', path: ['target', 'key', i], message: `key field "${key}" is not a mapped target field (fields[].target)` });
        }
      });
    }),
  'How records of a source entity become records of a target entity.',
  'Mapping',
);
