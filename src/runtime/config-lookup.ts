import type { InitializationService } from '../config/initialization-service';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Pair } from '../model/pair';

/**
 * The configuration as detection and processing look it up: unknown names give `undefined`
 * (the services turn that into a clear, permanent error for the message or job at hand).
 */
export function configLookup(init: InitializationService) {
  return {
    ensureInitialized: () => init.ensureInitialized(),
    getJob: (name: string): Job | undefined => init.findJob(name),
    getPair: (name: string): Pair | undefined => (init.isInitialized ? init.config.pairs.find((pair) => pair.name === name) : undefined),
    getMapping: (name: string): Mapping | undefined => {
      try {
        return init.getMapping(name);
      } catch {
        return undefined;
      }
    },
  };
}
