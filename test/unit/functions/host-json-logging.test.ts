import { readFileSync } from 'node:fs';
import path from 'node:path';

const host = JSON.parse(readFileSync(path.join(__dirname, '../../../host.json'), 'utf8'));

/** What host.json lets reach Application Insights through the Functions host. */
describe('host.json logging', () => {
  it('never samples traces away: sampling is per telemetry type, not per severity, and a warning logged through the host is a Trace', () => {
    // excludedTypes takes Dependency, Event, Exception, PageView, Request and Trace: a warning
    // (context.warn, console output the worker forwards) cannot be kept apart from other traces.
    expect(host.logging.applicationInsights.samplingSettings.excludedTypes.split(';').sort()).toEqual(['Event', 'Exception', 'Request', 'Trace']);
  });

  it('keeps the trace volume down by level instead: chatty SDK and Durable Task categories at Warning, the rest at Information', () => {
    expect(host.logging.logLevel).toMatchObject({
      default: 'Information',
      Function: 'Information',
      'Azure.Messaging.ServiceBus': 'Warning',
      'DurableTask.AzureStorage': 'Warning',
      'DurableTask.Core': 'Warning',
    });
  });
});
