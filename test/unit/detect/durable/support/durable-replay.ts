import { DummyEntityContext, DummyOrchestrationContext, EntityId, type EntityContext, type OrchestrationContext, type Task } from 'durable-functions';
import {
  createEntityFunction,
  createOrchestrator,
  DurableOrchestrationInput,
  type OrchestratorStateLike,
} from 'durable-functions/lib/src/util/testingUtils';

/** durable-functions' HistoryEventType / ActionType values used here. */
const EVENT = { ExecutionStarted: 0, TaskScheduled: 4, TaskCompleted: 5, TaskFailed: 6, OrchestratorStarted: 12, OrchestratorCompleted: 13, EventSent: 14, EventRaised: 15 };
const ACTION = { CallActivity: 0, ContinueAsNew: 4, CallEntity: 7 };

type Orchestrator = (context: OrchestrationContext) => Generator<Task, unknown, unknown>;
/** Any entity function, whatever its state type (called through the untyped entity runner). */
type EntityFunction = (context: never) => void;

export interface ReplayBackend {
  /** The app's activities by name; throw to fail the task. */
  activities: Record<string, (input: unknown) => unknown>;
  /** The app's entities by name. */
  entities: Record<string, EntityFunction>;
  /** Entity states by scheduler id (`@jobstate@jobs`), as JSON; shared between runs. */
  entityStates: Map<string, string>;
}

interface CallRecord {
  kind: 'activity' | 'entity';
  name: string;
  operation?: string;
  input: unknown;
}

export interface ReplayResult {
  status: 'Completed' | 'Failed';
  output?: unknown;
  error?: string;
  /** Every activity and entity call, in order. */
  calls: CallRecord[];
  /** The orchestration's custom status when each of `calls` was scheduled (same order). */
  statusAtCall: unknown[];
  /** The custom status the last episode reported. */
  customStatus: unknown;
  /** Episodes the engine ran (each one replays the whole history from the start). */
  episodes: number;
  /** Generations: 1 + how often the orchestration continued as new. */
  generations: number;
  /** The longest history one episode replayed, in events. */
  longestHistory: number;
}

/**
 * A minimal Durable Task backend for tests: runs an orchestrator through durable-functions' real
 * replay engine, episode by episode, writing the history events the extension would write
 * (TaskScheduled/TaskCompleted/TaskFailed for activities, EventSent/EventRaised for entity calls)
 * and executing entity operations through durable-functions' real entity runner. Every episode
 * must reproduce the actions of the previous ones (otherwise the orchestrator is not
 * deterministic and this throws).
 */
export async function runOrchestration(orchestrator: Orchestrator, input: unknown, backend: ReplayBackend, start = new Date('2026-03-01T08:00:00Z')): Promise<ReplayResult> {
  const engine = createOrchestrator(orchestrator);
  const clock = (episode: number) => new Date(start.getTime() + episode * 1000);
  const begin = (at: Date, generationInput: unknown): Array<Record<string, unknown>> => [
    { EventType: EVENT.OrchestratorStarted, EventId: -1, IsPlayed: false, Timestamp: at },
    { EventType: EVENT.ExecutionStarted, EventId: -1, IsPlayed: false, Timestamp: at, Name: 'orchestrator', Input: JSON.stringify(generationInput) },
  ];
  let history = begin(clock(0), input);
  const calls: CallRecord[] = [];
  const statusAtCall: unknown[] = [];
  let known: Array<Record<string, unknown>> = [];
  let generations = 1;
  let longestHistory = 0;
  for (let episode = 1; episode <= 10_000; episode++) {
    let state: OrchestratorStateLike;
    longestHistory = Math.max(longestHistory, history.length);
    try {
      state = await engine(new DurableOrchestrationInput('instance-1', structuredClone(history), input), new DummyOrchestrationContext('orchestrator'));
    } catch (err) {
      return { status: 'Failed', error: failureMessage(err), calls, statusAtCall, customStatus: undefined, episodes: episode, generations, longestHistory };
    }
    const actions = state.actions.flat();
    const replayed = JSON.stringify(actions.slice(0, known.length));
    if (replayed !== JSON.stringify(known)) throw new Error(`non-deterministic replay in episode ${episode}: ${replayed} vs ${JSON.stringify(known)}`);
    const continued = actions.find((action) => action.actionType === ACTION.ContinueAsNew);
    if (state.isDone && continued) {
      // As the extension does: the same instance starts again with the new input and an empty history.
      input = typeof continued.input === 'string' ? JSON.parse(continued.input) : continued.input;
      history = begin(clock(episode), input);
      known = [];
      generations++;
      continue;
    }
    if (state.isDone) return { status: 'Completed', output: state.output, calls, statusAtCall, customStatus: state.customStatus, episodes: episode, generations, longestHistory };
    const fresh = actions.slice(known.length);
    if (fresh.length === 0) throw new Error(`episode ${episode}: the orchestration neither finished nor scheduled anything`);
    known = actions;
    const completions: Array<Record<string, unknown>> = [];
    for (const [offset, action] of fresh.entries()) {
      const id = known.length - fresh.length + offset;
      const at = clock(episode);
      if (action.actionType === ACTION.CallActivity) {
        const name = String(action.functionName);
        const activityInput = typeof action.input === 'string' ? JSON.parse(action.input) : action.input;
        calls.push({ kind: 'activity', name, input: activityInput });
        statusAtCall.push(state.customStatus);
        history.push({ EventType: EVENT.TaskScheduled, EventId: id, IsPlayed: false, Timestamp: at, Name: name });
        try {
          const result = await backend.activities[name](structuredClone(activityInput));
          completions.push({ EventType: EVENT.TaskCompleted, EventId: -1, IsPlayed: false, Timestamp: at, TaskScheduledId: id, Result: JSON.stringify(result) });
        } catch (err) {
          completions.push({ EventType: EVENT.TaskFailed, EventId: -1, IsPlayed: false, Timestamp: at, TaskScheduledId: id, Reason: (err as Error).message, Details: 'stack' });
        }
      } else if (action.actionType === ACTION.CallEntity) {
        const requestId = `request-${id}`;
        const schedulerId = String(action.instanceId);
        const operation = String(action.operation);
        calls.push({ kind: 'entity', name: schedulerId, operation, input: action.input });
        statusAtCall.push(state.customStatus);
        history.push({ EventType: EVENT.EventSent, EventId: id, IsPlayed: false, Timestamp: at, Name: 'op', InstanceId: schedulerId, Input: JSON.stringify({ id: requestId, op: operation }) });
        const response = await runEntityOperation(backend, schedulerId, operation, action.input, requestId);
        completions.push({ EventType: EVENT.EventRaised, EventId: -1, IsPlayed: false, Timestamp: at, Name: requestId, Input: JSON.stringify(response) });
      } else {
        throw new Error(`the test backend does not implement action type ${String(action.actionType)}`);
      }
    }
    history.push({ EventType: EVENT.OrchestratorCompleted, EventId: -1, IsPlayed: false, Timestamp: clock(episode - 1) });
    history.push({ EventType: EVENT.OrchestratorStarted, EventId: -1, IsPlayed: false, Timestamp: clock(episode) }, ...completions);
  }
  throw new Error('the orchestration did not finish within 10 000 episodes');
}

/** The engine reports a failed orchestration as `<…>\n\n$OutOfProcData$:<state JSON>`; the reason is the state's `error`. */
function failureMessage(err: unknown): string {
  const message = String((err as Error).message);
  const marker = '$OutOfProcData$:';
  const at = message.indexOf(marker);
  if (at < 0) return message;
  return String((JSON.parse(message.slice(at + marker.length)) as { error?: unknown }).error);
}

/** One operation through durable-functions' entity runner; the response as the extension sends it. */
async function runEntityOperation(backend: ReplayBackend, schedulerId: string, operation: string, input: unknown, requestId: string) {
  const [, lowerName, key] = /^@([^@]+)@(.*)$/.exec(schedulerId) ?? [];
  const name = Object.keys(backend.entities).find((n) => n.toLowerCase() === lowerName);
  if (!name) throw new Error(`unknown entity ${schedulerId}`);
  const stored = backend.entityStates.get(schedulerId);
  const binding = {
    self: new EntityId(name, key),
    exists: stored !== undefined,
    state: stored,
    batch: [{ name: operation, input: input === undefined ? undefined : JSON.stringify(input), id: requestId, signal: false }],
  };
  const result = await createEntityFunction(backend.entities[name] as (context: EntityContext<unknown>) => void)(binding, new DummyEntityContext(name));
  if (result.entityExists && result.entityState !== undefined) backend.entityStates.set(schedulerId, result.entityState);
  const [outcome] = result.results;
  // As the extension answers for an out-of-process entity: the operation's result text unchanged, and
  // ExceptionType "Error" when it failed.
  return outcome.isError ? { result: outcome.result, exceptionType: 'Error' } : { result: outcome.result };
}
