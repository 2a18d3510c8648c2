import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';

/** The connection type a push format reads its records from. */
const SOURCE_TYPE: Record<string, string> = { dataverse: 'dataverse', businesscentral: 'businesscentral' };

/**
 * What a job's `push` needs of its source and mapping, beyond its own block: a Dataverse or
 * Business Central push on a connection of that type, a source key of one column (a pushed row is
 * addressed by its id), `id` for Business Central (a deleted record is known by nothing else).
 * @returns `{ path, message }` per problem, paths from the job (`push.format`, `mapping`).
 */
export function pushReferenceProblems(job: Job, sourceType: string | undefined, mapping: Mapping | undefined): Array<{ path: string; message: string }> {
  const format = job.push?.format;
  if (format === undefined || format === 'generic') return [];
  const problems: Array<{ path: string; message: string }> = [];
  const wanted = SOURCE_TYPE[format];
  if (sourceType !== undefined && sourceType.trim().toLowerCase() !== wanted) {
    problems.push({ path: 'push.format', message: `${format} needs a ${wanted} source; connection "${job.source}" is of type ${sourceType}` });
  }
  const key = mapping?.source.key;
  if (key && format === 'businesscentral' && (key.length !== 1 || key[0] !== 'id')) {
    problems.push({ path: 'mapping', message: `mapping "${mapping!.name}": source key must be [id] for push.format businesscentral (a deleted record is known by its id only), got [${key.join(', ')}]` });
  }
  if (key && format === 'dataverse' && key.length !== 1) {
    problems.push({ path: 'mapping', message: `mapping "${mapping!.name}": source key must be the table's id column alone for push.format dataverse, got [${key.join(', ')}]` });
  }
  return problems;
}
