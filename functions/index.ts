/**
 * The Functions app (package `main`): importing a function's file registers it with the host.
 * Nine functions: detection by timer and HTTP, the durable detection path, three processors.
 */
import { app } from '@azure/functions';
import { closeRuntime } from './runtime-instance';
import './GetChanges';
import './ExecuteJob';
import './StartGetChangesOrchestration';
import './GetChangesOrchestrator';
import './GetChangesActivity';
import './JobState';
import './ProcessHighQueueItems';
import './ProcessNormalQueueItems';
import './ProcessLowQueueItems';

// Flushes metrics and closes connector pools and bus clients when the worker shuts down.
app.hook.appTerminate(async () => {
  await closeRuntime();
});
