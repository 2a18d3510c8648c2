import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { BusMessage } from '../../src/bus/message-bus';
import { fromServiceBusMessage } from '../../src/bus/azure/message-conversion';

/**
 * The port's view of a message decoded from the host's SDK binding data (binding-data.ts).
 *
 * Delivery count: the host serializes the .NET SDK's message, whose count already includes the
 * current delivery (1 on the first, as the port counts), unlike a JS SDK receiver's raw broker
 * count. So it is taken as is; a message without the header section counts as a first delivery.
 */
export function toBusMessage(message: ServiceBusReceivedMessage, queue: string): BusMessage {
  const converted = fromServiceBusMessage(message, { queue });
  converted.deliveryCount = Math.max(1, message.deliveryCount ?? 0);
  return converted;
}
