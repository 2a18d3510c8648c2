/**
 * App setting naming the Service Bus queue a Dataverse service endpoint (contract Queue, message
 * format JSON) posts to, on the namespace of `ServiceBusConnection`. Empty or unset: no function
 * reads it (the Functions app registers `ReceiveDataverseEvents` only when it is set).
 */
export const DATAVERSE_EVENTS_QUEUE_SETTING = 'HIGHWATER_DATAVERSE_EVENTS_QUEUE';
