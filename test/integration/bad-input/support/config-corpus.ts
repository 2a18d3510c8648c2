import type { ConfigCase } from './config-folder';
import { CONNECTION_CASES } from './config-cases/connections';
import { JOB_CASES } from './config-cases/jobs';
import { MAPPING_CASES } from './config-cases/mappings';
import { STRUCTURE_CASES } from './config-cases/structure';

export type { ConfigCase } from './config-folder';

/** The bad-configuration corpus: at least 50 invalid configurations, each with the exact lines it must produce. */
export const CONFIG_CASES: ConfigCase[] = [...STRUCTURE_CASES, ...CONNECTION_CASES, ...MAPPING_CASES, ...JOB_CASES];
