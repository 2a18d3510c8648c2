import { app, type InvocationContext } from '@azure/functions';
import { APP_SETTINGS } from '../src/platform/app-settings';
import { readSetting } from '../src/platform/setting-spec';
import { getRuntime } from './runtime-instance';

/**
 * One `RemoteExecutionContext` from the queue a Dataverse service endpoint (contract Queue,
 * message format JSON) posts to: turned into the queue messages of every job with
 * `push.format: dataverse` reading that table (`PushService.receiveDataverseEvent`, which the
 * local host's `highwater push dataverse-file` runs too). A context that cannot be taken throws:
 * the host abandons the message, and after the queue's max delivery count it is dead-lettered
 * there, with the error in the log. Nothing is completed before its messages are sent.
 */
export async function receiveDataverseEvent(message: unknown, context: InvocationContext): Promise<void> {
  const runtime = await getRuntime();
  const outcomes = await runtime.push.receiveDataverseEvent(asContext(message));
  context.debug(`Dataverse event: ${outcomes.map((o) => `${o.job} sent ${o.sent}${o.pollRequested ? ', poll requested' : ''}`).join('; ')}`);
}

/** The trigger hands JSON bodies over parsed; a body it could not parse arrives as text or bytes. */
export function asContext(message: unknown): unknown {
  if (typeof message === 'string') return JSON.parse(message.charCodeAt(0) === 0xfeff ? message.slice(1) : message);
  if (message instanceof Uint8Array) return asContext(Buffer.from(message).toString('utf8'));
  return message;
}

// Registered only when the setting names a queue: an unresolvable %setting% would put the
// function in error on every app that does not take Dataverse events.
if (readSetting(process.env, APP_SETTINGS.dataverseEventsQueue)) {
  app.serviceBusQueue('ReceiveDataverseEvents', {
    connection: 'ServiceBusConnection',
    queueName: `%${APP_SETTINGS.dataverseEventsQueue.name}%`,
    cardinality: 'one',
    handler: receiveDataverseEvent,
  });
}
