/** The embedded SQLite message bus (Service Bus semantics); see {@link LocalBus}. */
export { LocalBus } from './local-bus';
export {
  DEFAULT_QUEUE_OPTIONS,
  type LocalBusOptions,
  type QueueDeclaration,
  type QueueOptions,
} from './options';
export { MAX_DELIVERY_REASON, TTL_EXPIRED_REASON } from './message-store';
