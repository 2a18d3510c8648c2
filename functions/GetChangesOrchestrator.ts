import * as df from 'durable-functions';
import type { OrchestrationContext } from 'durable-functions';
import { GET_CHANGES_ORCHESTRATOR, type GetChangesOutput } from '../src/detect/durable/durable-contract';
import { getChangesOrchestration } from '../src/detect/durable/get-changes-orchestration';
import { durableOrchestrationPort } from './support/durable-port';

/**
 * The orchestrator generator, exported apart from its registration (`df.app.orchestration`
 * wraps it): tests step it with `DummyOrchestrationContext` and through the replay engine.
 */
export function* getChangesOrchestrator(context: OrchestrationContext): Generator<df.Task, GetChangesOutput, unknown> {
  return yield* getChangesOrchestration(durableOrchestrationPort(context));
}

df.app.orchestration(GET_CHANGES_ORCHESTRATOR, getChangesOrchestrator);
