import type { Connection } from './connection';
import type { Job } from './job';
import type { Mapping } from './mapping';

/** A whole, validated configuration: what the tables `connections`, `mappings`, `jobs` hold. */
export interface HighwaterConfig {
  connections: Connection[];
  mappings: Mapping[];
  jobs: Job[];
}
