import { app, type InvocationContext, type Timer } from '@azure/functions';
import { getRuntime } from './runtime-instance';

/** Every hour at minute 7 (off the other timers): a subscription lives three days, renewal starts a day before. */
export const RENEW_SUBSCRIPTIONS_SCHEDULE = '0 7 * * * *';

/**
 * Timer: keeps the Business Central webhook subscription of every job with `push.format:
 * businesscentral` (`SubscriptionKeeper.keepAll`: create when missing or gone, renew within a
 * day of expiry). Nothing to do, and no call to Business Central, without such jobs. A job whose
 * subscription cannot be kept is logged and tried again next hour; the invocation fails only when
 * the configuration cannot be read.
 */
export async function renewSubscriptions(_timer: Timer, context: InvocationContext): Promise<void> {
  const runtime = await getRuntime();
  const kept = await runtime.subscriptions.keepAll();
  for (const k of kept) context.debug(`job ${k.job}: subscription ${k.action}${k.expirationDateTime ? ` until ${k.expirationDateTime}` : ''}${k.error ? `: ${k.error}` : ''}`);
}

app.timer('RenewSubscriptions', { schedule: RENEW_SUBSCRIPTIONS_SCHEDULE, runOnStartup: false, useMonitor: false, handler: renewSubscriptions });
