import type { SourceConnector } from '../../../connectors/base/source-connector';
import type { Job } from '../../model/job';
import type { Mapping } from '../../model/mapping';
import type { Pair } from '../../model/pair';
import { compareCanonical } from '../../model/watermark-canonical';
import { parseWatermarkType } from '../../model/watermark-value';
import { ConfigError } from '../../platform/errors';
import type { ConfigLookup, SourceProvider } from '../processing-dependencies';
import { syncFields, type SyncField } from '../../twoway/sync-fields';

/** Everything one direction of a pair needs to sync records: both jobs, mappings and sources. */
export interface PairContext {
  pair: Pair;
  job: Job;
  mapping: Mapping;
  partner: Job;
  partnerMapping: Mapping;
  fields: SyncField[];
  source: SourceConnector & Required<Pick<SourceConnector, 'readByKeys'>>;
  partnerSource: SourceConnector & Required<Pick<SourceConnector, 'readByKeys'>>;
  /** For `newest`: which tracker is later ('s' = this job's side), undefined when equal or not comparable. */
  newer(sTracker: string | null, tTracker: string | null): 's' | 't' | undefined;
}

/**
 * Builds the context of a pair job.
 * @throws ConfigError when the pair, its partner or a mapping is unknown, or a side's connector
 *   cannot read records by key (two-way sync reads both sides before it writes).
 */
export async function pairContext(job: Job, mapping: Mapping, config: ConfigLookup, sources: SourceProvider | undefined): Promise<PairContext> {
  const ref = job.pair;
  if (!ref) throw new ConfigError(`job "${job.name}" is not part of a pair`);
  const pair = config.getPair?.(ref.name);
  if (!pair) throw new ConfigError(`job "${job.name}": unknown pair "${ref.name}"`);
  const partner = config.getJob(ref.partner);
  if (!partner) throw new ConfigError(`pair "${pair.name}": unknown job "${ref.partner}"`);
  const partnerMapping = config.getMapping(partner.mapping);
  if (!partnerMapping) throw new ConfigError(`pair "${pair.name}": unknown mapping "${partner.mapping}"`);
  if (!sources) throw new ConfigError(`pair "${pair.name}": this host reads no sources while processing; two-way sync needs them`);
  const readable = async (connection: string) => {
    const source = await sources.source(connection);
    if (!source.readByKeys) throw new ConfigError(`pair "${pair.name}": connection "${connection}" cannot read records by key, which two-way sync needs`);
    return source as PairContext['source'];
  };
  const [source, partnerSource] = await Promise.all([readable(job.source), readable(partner.source)]);
  const sType = parseWatermarkType(job.watermark.type);
  const tType = parseWatermarkType(partner.watermark.type);
  return {
    pair,
    job,
    mapping,
    partner,
    partnerMapping,
    fields: syncFields(pair, ref.side, mapping, partnerMapping),
    source,
    partnerSource,
    newer(s, t) {
      if (s === null || t === null || sType !== 'datetime' || tType !== 'datetime') return undefined;
      const order = compareCanonical('datetime', s, t);
      return order > 0 ? 's' : order < 0 ? 't' : undefined;
    },
  };
}
