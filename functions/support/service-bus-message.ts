import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { BusMessage } from '../../src/bus/message-bus';
import { fromServiceBusMessage } from '../../src/bus/azure/message-conversion';

const ENQUEUED_TIME_ANNOTATION = 'x-opt-enqueued-time';

/**
 * The port's view of a message delivered through the Service Bus extension's SDK binding.
 *
 * - Delivery count: the extension forwards the host's (.NET) message, whose count already
 *   includes the current delivery (1 on the first, as the port counts), unlike a JS SDK
 *   receiver's raw broker count. So it is taken as is, at least 1.
 * - Enqueued time: the extension only reads the annotation when it is a string or number, but
 *   AMQP timestamps decode to a Date; it is read from the raw annotation then.
 * - Body: with content type `application/json` the extension hands over parsed JSON; the port
 *   gets it back as UTF-8 JSON bytes.
 */
export function toBusMessage(message: ServiceBusReceivedMessage, queue: string): BusMessage {
  const converted = fromServiceBusMessage(message, { queue });
  converted.deliveryCount = Math.max(1, message.deliveryCount ?? 0);
  if (message.enqueuedTimeUtc === undefined) {
    const annotated = message._rawAmqpMessage?.messageAnnotations?.[ENQUEUED_TIME_ANNOTATION];
    if (annotated instanceof Date) converted.enqueuedTime = annotated;
  }
  if (message.expiresAtUtc === undefined && message.timeToLive !== undefined && converted.enqueuedTime.getTime() > 0) {
    converted.expiresAt = new Date(converted.enqueuedTime.getTime() + message.timeToLive);
  }
  return converted;
}
