/**
 * The Dataverse queue function is registered only when `HIGHWATER_DATAVERSE_EVENTS_QUEUE` names
 * the queue (an unresolvable `%setting%` would put the function in error on every host).
 */
export {};

interface Registered {
  name: string;
  bindings: Record<string, Record<string, unknown>>;
}
const registered: Registered[] = [];

jest.mock(
  '@azure/functions-core',
  () => ({
    setProgrammingModel() {},
    log() {},
    registerFunction(metadata: Registered) {
      registered.push(metadata);
      return { dispose() {} };
    },
    registerHook() {
      return { dispose() {} };
    },
  }),
  { virtual: true },
);

describe('ReceiveDataverseEvents registration', () => {
  afterEach(() => {
    delete process.env.HIGHWATER_DATAVERSE_EVENTS_QUEUE;
    registered.length = 0;
  });

  it('binds the queue the setting names, one message at a time, on the shared Service Bus connection', async () => {
    process.env.HIGHWATER_DATAVERSE_EVENTS_QUEUE = 'dataverseevents';
    await jest.isolateModulesAsync(async () => {
      await import('../../../functions/ReceiveDataverseEvents');
    });
    expect(registered.map((r) => r.name)).toEqual(['ReceiveDataverseEvents']);
    const trigger = Object.values(registered[0].bindings).find((b) => b.type === 'serviceBusTrigger');
    expect(trigger).toMatchObject({ queueName: '%HIGHWATER_DATAVERSE_EVENTS_QUEUE%', connection: 'ServiceBusConnection', cardinality: 'one' });
  });

  it('registers nothing without the setting', async () => {
    await jest.isolateModulesAsync(async () => {
      await import('../../../functions/ReceiveDataverseEvents');
    });
    expect(registered).toEqual([]);
  });
});
