import { ServiceBusService } from '../bus/service-bus-service';
import { configLookup } from './config-lookup';
import type { Runtime } from './runtime';
import type { GetChangesActivityDependencies } from '../detect/durable/get-changes-activity';
import type { OrchestrationInputDependencies } from '../http/orchestration-input';

/**
 * The durable path's dependencies taken from the composition root, shared by the Functions app
 * and the local host so that both wire the activity and the starter the same way.
 */
export function activityDependencies(runtime: Runtime): GetChangesActivityDependencies {
  return {
    config: configLookup(runtime.init),
    watermarks: runtime.watermarks,
    sources: runtime.connectors,
    newSender: () => new ServiceBusService({ bus: runtime.bus, queues: runtime.settings.queues }),
    metrics: runtime.metrics,
    log: runtime.log,
    unchanged: runtime.unchanged,
  };
}

export function orchestrationInputDependencies(runtime: Runtime): OrchestrationInputDependencies {
  return {
    config: configLookup(runtime.init),
    dueJobs: (now) => runtime.jobs.getJobsToRun(now),
    now: () => runtime.clock.now(),
  };
}
