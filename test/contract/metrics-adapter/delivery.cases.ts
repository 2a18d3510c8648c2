import { METRIC_NAMES } from '../../../src/telemetry/metrics';
import { bySeries, type ContractContext, deliveredBy, expectedFor, PERIOD_MS, withMetrics } from './context';

const processed = { job: 'crm-accounts', queue: 'sbqhigh', outcome: 'Success' };

/** What is tracked arrives, with its dimensions, aggregated as the adapter documents, once; flush and close deliver it. */
export function deliveryCases(ctx: ContractContext): void {
  ctx.caseIt([])('delivers a counted value with its dimensions', async () => {
    await withMetrics(ctx, async (m) => {
      m.metrics.track(METRIC_NAMES.messagesProcessed, 1, processed);
      await m.advance(PERIOD_MS);
      await m.metrics.flush();
      expect(await deliveredBy(m)).toEqual(m.destinations.map((d) => ({ destination: d.name, points: expectedFor(d, 'MessagesProcessed', processed, [1]) })));
    });
  });

  ctx.caseIt([])('aggregates the values of one series in a period as the adapter documents; other dimension values are other series', async () => {
    await withMetrics(ctx, async (m) => {
      for (const value of [2, 3, 4]) m.metrics.track(METRIC_NAMES.changesDetected, value, { job: 'a' });
      m.metrics.track(METRIC_NAMES.changesDetected, 7, { job: 'b' });
      m.metrics.track(METRIC_NAMES.processingDurationMs, 12.5, processed);
      await m.advance(PERIOD_MS);
      await m.metrics.flush();
      const delivered = await deliveredBy(m);
      expect(delivered.map((d) => ({ destination: d.destination, points: bySeries(d.points) }))).toEqual(m.destinations.map((d) => ({
        destination: d.name,
        points: bySeries([
          ...expectedFor(d, 'ChangesDetected', { job: 'a' }, [2, 3, 4]),
          ...expectedFor(d, 'ChangesDetected', { job: 'b' }, [7]),
          ...expectedFor(d, 'ProcessingDurationMs', processed, [12.5]),
        ]),
      })));
    });
  });

  ctx.caseIt([])('takes the same dimensions in another order for the same series', async () => {
    await withMetrics(ctx, async (m) => {
      m.metrics.track(METRIC_NAMES.messagesProcessed, 1, processed);
      m.metrics.track(METRIC_NAMES.messagesProcessed, 1, { outcome: 'Success', queue: 'sbqhigh', job: 'crm-accounts' });
      await m.advance(PERIOD_MS);
      await m.metrics.flush();
      expect(await deliveredBy(m)).toEqual(
        m.destinations.map((d) => ({ destination: d.name, points: expectedFor(d, 'MessagesProcessed', processed, [1, 1]) })),
      );
    });
  });

  ctx.caseIt([])('flush delivers what was tracked before it; a later flush what came after; nothing twice', async () => {
    await withMetrics(ctx, async (m) => {
      m.metrics.track(METRIC_NAMES.watermarkLagSeconds, 5, { job: 'a' });
      await m.advance(PERIOD_MS);
      await m.metrics.flush();
      const first = await deliveredBy(m);
      m.metrics.track(METRIC_NAMES.watermarkLagSeconds, 6, { job: 'a' });
      await m.advance(PERIOD_MS);
      await m.metrics.flush();
      await m.metrics.flush();
      const second = await deliveredBy(m);
      expect([first, second]).toEqual([
        m.destinations.map((d) => ({ destination: d.name, points: expectedFor(d, 'WatermarkLagSeconds', { job: 'a' }, [5]) })),
        m.destinations.map((d) => ({
          destination: d.name,
          points: [...expectedFor(d, 'WatermarkLagSeconds', { job: 'a' }, [5]), ...expectedFor(d, 'WatermarkLagSeconds', { job: 'a' }, [6])],
        })),
      ]);
    });
  });

  ctx.caseIt([])('close delivers everything tracked, the current period included', async () => {
    await withMetrics(ctx, async (m) => {
      m.metrics.track(METRIC_NAMES.queueDepth, 17, { queue: 'sbqhigh', role: 'work', state: 'active' });
      await m.close();
      expect(await deliveredBy(m)).toEqual(
        m.destinations.map((d) => ({ destination: d.name, points: expectedFor(d, 'QueueDepth', { queue: 'sbqhigh', role: 'work', state: 'active' }, [17]) })),
      );
    });
  });
}
