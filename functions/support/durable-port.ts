import * as df from 'durable-functions';
import type { OrchestrationContext } from 'durable-functions';
import type { OrchestrationPort } from '../../src/detect/durable/get-changes-orchestration';

/**
 * The orchestration port on Durable Functions' `context.df`: one call each, nothing added, so
 * that the generator in src/detect/durable runs on the real Durable Task engine unchanged.
 * `context.df` is read on every call: the engine sets it before it starts the generator.
 */
export function durableOrchestrationPort(context: OrchestrationContext): OrchestrationPort<df.Task> {
  return {
    input: () => context.df.getInput<unknown>(),
    instanceId: () => context.df.instanceId,
    now: () => context.df.currentUtcDateTime,
    callEntity: (entity, operation, input) => context.df.callEntity(new df.EntityId(entity.name, entity.key), operation, input),
    callActivity: (name, input) => context.df.callActivity(name, input),
    setStatus: (status) => context.df.setCustomStatus(status),
    continueAsNew: (input) => context.df.continueAsNew(input),
  };
}
