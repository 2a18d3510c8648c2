import path from 'node:path';
import { readSettings } from '../../../src/platform/settings';

describe('readSettings: the Service Bus connection', () => {
  const emulator = 'Endpoint=sb://localhost;SharedAccessKeyName=k;SharedAccessKey=v;UseDevelopmentEmulator=true;';
  const other = 'Endpoint=sb://other.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=w';

  it('uses the local bus when no connection is set', () => {
    expect(readSettings({}, '/tmp').serviceBusConnectionString).toBeUndefined();
  });

  it("falls back to the triggers' ServiceBusConnection, so code and triggers reach one broker", () => {
    expect(readSettings({ ServiceBusConnection: emulator }, '/tmp').serviceBusConnectionString).toBe(emulator);
  });

  it('prefers SERVICEBUS_CONNECTION_STRING when both are set, and ignores an empty one', () => {
    expect(readSettings({ ServiceBusConnection: emulator, SERVICEBUS_CONNECTION_STRING: other }, '/tmp').serviceBusConnectionString).toBe(other);
    expect(readSettings({ ServiceBusConnection: emulator, SERVICEBUS_CONNECTION_STRING: ' ' }, '/tmp').serviceBusConnectionString).toBe(emulator);
  });

  it('resolves the data folder against the working folder', () => {
    expect(readSettings({ HIGHWATER_DATA_DIR: 'data' }, '/srv/app').dataDir).toBe(path.resolve('/srv/app', 'data'));
  });
});
