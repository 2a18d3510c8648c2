import type { Connection } from './connection';
import type { Job } from './job';
import type { Mapping } from './mapping';
import type { Pair } from './pair';

/**
 * A whole, validated configuration: what the tables `connections`, `mappings`, `jobs` and `pairs`
 * hold. `jobs` and `mappings` also hold the two jobs and mappings each pair expands into (jobs
 * with `pair` set), so that running, detecting and processing find them as any other.
 */
export interface HighwaterConfig {
  connections: Connection[];
  mappings: Mapping[];
  jobs: Job[];
  /** Two-way pairs; empty when none. */
  pairs: Pair[];
}
