/**
 * Typings for durable-functions' internal test entry points (3.5.0, pinned in package.json):
 * the real replay engine behind `df.app.orchestration` and the entity batch runner.
 */
declare module 'durable-functions/lib/src/util/testingUtils' {
  import type { InvocationContext } from '@azure/functions';
  import type { EntityContext, OrchestrationContext, Task } from 'durable-functions';

  export class DurableOrchestrationInput {
    constructor(instanceId?: string, history?: unknown[], input?: unknown);
  }

  /** What the replay engine returns to the extension after one episode (replay schema V1). */
  export interface OrchestratorStateLike {
    isDone: boolean;
    actions: Array<Array<Record<string, unknown>>>;
    output?: unknown;
    error?: string;
    customStatus?: unknown;
  }

  export function createOrchestrator(
    fn: (context: OrchestrationContext) => Generator<Task, unknown, unknown>,
  ): (trigger: DurableOrchestrationInput, context: InvocationContext) => Promise<OrchestratorStateLike>;

  export interface EntityStateLike {
    entityExists: boolean;
    entityState?: string;
    results: Array<{ isError: boolean; result?: string }>;
  }

  export function createEntityFunction<T>(fn: (context: EntityContext<T>) => void): (trigger: unknown, context: InvocationContext) => Promise<EntityStateLike>;
}
