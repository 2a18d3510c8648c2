import { createAzureClients, normalizeNamespace } from '../../../../src/bus/azure/azure-connection';
import { AzureServiceBus } from '../../../../src/bus/azure/azure-bus';

const KEY = 'c2VjcmV0LWtleS12YWx1ZQ==';

describe('createAzureClients (no network: clients connect on first use)', () => {
  it('reads the namespace from a connection string and tells the emulator apart', async () => {
    const cloud = createAzureClients({ connectionString: `Endpoint=sb://contoso.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${KEY}` });
    expect([cloud.namespace, cloud.emulator]).toEqual(['contoso.servicebus.windows.net', false]);
    const emulator = createAzureClients({ connectionString: `Endpoint=sb://localhost;SharedAccessKeyName=Root;SharedAccessKey=${KEY};UseDevelopmentEmulator=true;` });
    expect([emulator.namespace, emulator.emulator]).toEqual(['localhost', true]);
    await Promise.all([cloud.client.close(), emulator.client.close()]);
  });

  it('refuses a malformed connection string with a ConfigError that does not echo it', () => {
    const attempt = () => createAzureClients({ connectionString: `SharedAccessKey${KEY}` });
    expect(attempt).toThrow('Service Bus connection string: malformed (expected Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…)');
    try {
      attempt();
    } catch (err) {
      expect((err as Error).name).toBe('ConfigError');
      expect(String((err as Error).message)).not.toContain(KEY);
    }
  });

  it('refuses a connection string without a key or without an endpoint', () => {
    expect(() => createAzureClients({ connectionString: 'Endpoint=sb://contoso.servicebus.windows.net/;SharedAccessKeyName=Root' })).toThrow(
      'Service Bus connection string: malformed',
    );
    expect(() => createAzureClients({ connectionString: `SharedAccessKeyName=Root;SharedAccessKey=${KEY}` })).toThrow('Service Bus connection string: malformed');
  });

  it('takes a namespace for managed identity, with or without scheme', async () => {
    expect(normalizeNamespace(' https://contoso.servicebus.windows.net/ ')).toBe('contoso.servicebus.windows.net');
    expect(normalizeNamespace('sb://contoso.servicebus.windows.net')).toBe('contoso.servicebus.windows.net');
    const clients = createAzureClients({ fullyQualifiedNamespace: 'sb://contoso.servicebus.windows.net/', managedIdentityClientId: '00000000-0000-0000-0000-000000000001' });
    expect([clients.namespace, clients.emulator]).toEqual(['contoso.servicebus.windows.net', false]);
    await clients.client.close();
    expect(() => createAzureClients({ fullyQualifiedNamespace: '  ' })).toThrow('Service Bus namespace: empty (expected <name>.servicebus.windows.net)');
  });

  it('AzureServiceBus exposes the namespace, never the key', async () => {
    const bus = new AzureServiceBus({ connectionString: `Endpoint=sb://contoso.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${KEY}` });
    expect(bus.namespace).toBe('contoso.servicebus.windows.net');
    expect(JSON.stringify(bus)).not.toContain(KEY);
    await bus.close();
  });
});
