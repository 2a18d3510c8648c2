import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildConfigJsonSchema, JSON_SCHEMA_PATH, REGENERATE_COMMAND, renderConfigJsonSchema } from '../../../src/config/json-schema';

const REPO_ROOT = path.join(__dirname, '..', '..', '..');

type JsonObject = Record<string, unknown>;

function definition(name: string): JsonObject {
  const definitions = buildConfigJsonSchema().definitions as Record<string, JsonObject>;
  const found = definitions[name];
  if (!found) throw new Error(`no definition ${name}; have ${Object.keys(definitions).join(', ')}`);
  return found;
}

describe('config JSON Schema', () => {
  it('is committed exactly as the code generates it', () => {
    const committed = readFileSync(path.join(REPO_ROOT, JSON_SCHEMA_PATH), 'utf8');
    if (committed !== renderConfigJsonSchema()) {
      throw new Error(`${JSON_SCHEMA_PATH} is out of date with src/config/*-schema.ts; regenerate it from the repository root: ${REGENERATE_COMMAND}`);
    }
  });

  it('describes the three file shapes, each with one list and an optional $schema, and the optional pairs and requeue files', () => {
    const schema = buildConfigJsonSchema();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.anyOf).toEqual([
      { $ref: '#/definitions/ConnectionsFile' },
      { $ref: '#/definitions/MappingsFile' },
      { $ref: '#/definitions/JobsFile' },
      { $ref: '#/definitions/PairsFile' },
      { $ref: '#/definitions/RequeueFile' },
    ]);
    expect(definition('PairsFile')).toMatchObject({
      type: 'object',
      required: ['pairs'],
      additionalProperties: false,
      properties: { $schema: { type: 'string' }, pairs: { type: 'array', items: { $ref: '#/definitions/Pair' } } },
    });
    expect(definition('Pair')).toMatchObject({
      required: ['name', 'a', 'b', 'fields'],
      additionalProperties: false,
      properties: {
        a: { $ref: '#/definitions/PairSide' },
        schedule: { default: '0 * * * * *' },
        enabled: { default: true },
        priority: { default: 'normal' },
        conflicts: { default: 'newest', enum: ['a', 'b', 'newest', 'manual'] },
        deletes: { default: 'propagate', enum: ['propagate', 'restore', 'uncouple'] },
      },
    });
    expect(definition('PairField')).toMatchObject({ required: ['a', 'b'], properties: { direction: { default: 'both', enum: ['both', 'toB', 'toA'] } } });
    expect(definition('PairMatchField')).toMatchObject({ required: ['a', 'b'], properties: { ignoreCase: { default: false } } });
    expect(definition('RequeueFile')).toMatchObject({ type: 'object', required: ['requeue'], additionalProperties: false });
    expect(definition('Requeue')).toMatchObject({
      additionalProperties: false,
      properties: { enabled: { type: 'boolean', default: false }, schedule: { default: '0 */15 * * * *' }, maxRequeues: { type: 'integer', default: 5 } },
    });
    expect(definition('JobsFile')).toMatchObject({
      type: 'object',
      required: ['jobs'],
      additionalProperties: false,
      properties: { $schema: { type: 'string' }, jobs: { type: 'array', items: { $ref: '#/definitions/Job' } } },
    });
  });

  it('describes input: properties with defaults are optional and carry the default', () => {
    const job = definition('Job');
    expect(job.required).toEqual(['name', 'schedule', 'source', 'target', 'mapping', 'watermark']);
    expect(job.additionalProperties).toBe(false);
    const properties = job.properties as Record<string, JsonObject>;
    expect(properties.priority).toMatchObject({ default: 'normal', enum: ['high', 'normal', 'low'] });
    expect(properties.lookbackSeconds).toMatchObject({ default: 0, type: 'integer' });
    // No default in the schema: a job without one reads the path's own (500, or 3 per durable activity).
    expect(properties.pageSize).not.toHaveProperty('default');
    expect(typeof properties.schedule.description).toBe('string');
    expect(definition('Connection').required).toEqual(['name', 'type']);
  });
});
