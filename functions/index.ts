/**
 * The Functions app (package `main`): importing a function's file registers it with the host.
 * Fourteen functions: detection by timer and HTTP (and the status of long HTTP runs), the durable
 * detection path, three processors, the gauge timer, the scheduled requeue of parked messages, the
 * push endpoint and the renewal of Business Central subscriptions; a fifteenth reads Dataverse
 * events from Service Bus when `HIGHWATER_DATAVERSE_EVENTS_QUEUE` names their queue.
 */
import { app } from '@azure/functions';
import { closeRuntime } from './runtime-instance';
import './GetChanges';
import './ExecuteJob';
import './GetRunStatus';
import './StartGetChangesOrchestration';
import './GetChangesOrchestrator';
import './GetChangesActivity';
import './JobState';
import './ProcessHighQueueItems';
import './ProcessNormalQueueItems';
import './ProcessLowQueueItems';
import './SampleGauges';
import './RequeueParked';
import './ReceivePush';
import './ReceiveDataverseEvents';
import './RenewSubscriptions';

// Flushes metrics and closes connector pools and bus clients when the worker shuts down.
app.hook.appTerminate(async () => {
  await closeRuntime();
});
