/**
 * What the Functions app registers with the host, recorded through a virtual
 * `@azure/functions-core` (the module the Functions host provides to the worker).
 */
interface Registered {
  name: string;
  bindings: Record<string, Record<string, unknown>>;
  handler: unknown;
}
const registered: Registered[] = [];
const hooks: string[] = [];

jest.mock(
  '@azure/functions-core',
  () => ({
    setProgrammingModel() {},
    // Present in the real host; here it keeps the worker's system log quiet.
    log() {},
    registerFunction(metadata: Omit<Registered, 'handler'>, handler: unknown) {
      registered.push({ ...metadata, handler });
      return { dispose() {} };
    },
    registerHook(hookName: string) {
      hooks.push(hookName);
      return { dispose() {} };
    },
  }),
  { virtual: true },
);

function trigger(name: string): Record<string, unknown> {
  const fn = registered.find((r) => r.name === name);
  if (!fn) throw new Error(`${name} is not registered`);
  const triggers = Object.values(fn.bindings).filter((b) => String(b.type).endsWith('Trigger'));
  expect(triggers).toHaveLength(1);
  return triggers[0];
}

describe('Functions app registrations', () => {
  beforeAll(async () => {
    await import('../../../functions/index');
  });

  it('registers exactly the fourteen functions with their trigger types (no Dataverse queue function without its setting)', () => {
    const byName = Object.fromEntries(registered.map((r) => [r.name, trigger(r.name).type]));
    expect(byName).toEqual({
      GetChanges: 'timerTrigger',
      ExecuteJob: 'httpTrigger',
      GetRunStatus: 'httpTrigger',
      StartGetChangesOrchestration: 'httpTrigger',
      GetChangesOrchestrator: 'orchestrationTrigger',
      GetChangesActivity: 'activityTrigger',
      JobState: 'entityTrigger',
      ProcessHighQueueItems: 'serviceBusTrigger',
      ProcessNormalQueueItems: 'serviceBusTrigger',
      ProcessLowQueueItems: 'serviceBusTrigger',
      SampleGauges: 'timerTrigger',
      RequeueParked: 'timerTrigger',
      ReceivePush: 'httpTrigger',
      RenewSubscriptions: 'timerTrigger',
    });
    expect(registered).toHaveLength(14);
    expect(registered.every((r) => typeof r.handler === 'function')).toBe(true);
  });

  it('schedules the timer from the GetChangesSchedule app setting', () => {
    expect(trigger('GetChanges')).toMatchObject({ schedule: '%GetChangesSchedule%', runOnStartup: false, useMonitor: true });
  });

  it('exposes ExecuteJob as POST jobs/{name}/execute with a function key', () => {
    expect(trigger('ExecuteJob')).toMatchObject({ route: 'jobs/{name}/execute', methods: ['POST'], authLevel: 'function' });
  });

  it('keeps Business Central subscriptions every hour at minute 7 (a subscription lives three days)', () => {
    expect(trigger('RenewSubscriptions')).toMatchObject({ schedule: '0 7 * * * *', runOnStartup: false, useMonitor: false });
  });

  it('exposes the push endpoint as GET and POST hooks/{job} with a function key', () => {
    expect(trigger('ReceivePush')).toMatchObject({ route: 'hooks/{job}', methods: ['GET', 'POST'], authLevel: 'function' });
  });

  it('exposes the status of accepted runs as GET runs/{id} with a function key (the route ExecuteJob’s 202 points to)', () => {
    expect(trigger('GetRunStatus')).toMatchObject({ route: 'runs/{id}', methods: ['GET'], authLevel: 'function' });
  });

  it('samples the gauges every minute at second 0 (a timer: one instance samples, however far the app scales)', () => {
    expect(trigger('SampleGauges')).toMatchObject({ schedule: '0 * * * * *', runOnStartup: false, useMonitor: false });
  });

  it('looks for a due requeue of parked messages every minute at second 30 (the requeue file holds the real schedule)', () => {
    expect(trigger('RequeueParked')).toMatchObject({ schedule: '30 * * * * *', runOnStartup: false, useMonitor: false });
  });

  it('starts the orchestration over HTTP with a durable client input', () => {
    expect(trigger('StartGetChangesOrchestration')).toMatchObject({
      route: 'orchestrators/GetChangesOrchestrator',
      methods: ['POST'],
      authLevel: 'function',
    });
    const fn = registered.find((r) => r.name === 'StartGetChangesOrchestration');
    expect(Object.values(fn?.bindings ?? {}).filter((b) => b.type === 'durableClient')).toEqual([
      expect.objectContaining({ direction: 'in' }),
    ]);
  });

  it.each([
    ['ProcessHighQueueItems', '%QUEUE_HIGH%'],
    ['ProcessNormalQueueItems', '%QUEUE_NORMAL%'],
    ['ProcessLowQueueItems', '%QUEUE_LOW%'],
  ])('binds %s to %s as a batch trigger with SDK binding and explicit settlement', (name, queueName) => {
    expect(trigger(name)).toMatchObject({
      queueName,
      connection: 'ServiceBusConnection',
      cardinality: 'many',
      sdkBinding: true,
      autoCompleteMessages: false,
      properties: { supportsDeferredBinding: 'true' },
    });
  });

  it('closes the runtime when the worker terminates', () => {
    expect(hooks).toEqual(['appTerminate']);
  });
});
