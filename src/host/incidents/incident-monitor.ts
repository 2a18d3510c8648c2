import type { RunLogStore } from '../../detect/run-log-store';
import type { Job } from '../../model/job';
import type { Clock } from '../../platform/clock';
import { errorMessage } from '../../platform/errors';
import type { TargetHealthView } from '../../process/target-health';
import type { GaugeSample } from '../../runtime/gauges';
import { ALERT_CONDITIONS, defaultAlertThresholds, type AlertThresholds } from '../../telemetry/alert-conditions';
import type { Logger } from '../../telemetry/logger';
import { findConditions, type DepthPoint, type IncidentObservation, type RunPoint } from './incident-findings';
import { advanceIncidents, KEEP_CLOSED_MS, type Incident } from './incident-lifecycle';

export interface IncidentMonitorOptions {
  /** The configured jobs (none before the configuration is loaded). */
  jobs: () => readonly Job[];
  runLog: Pick<RunLogStore, 'latest'>;
  /** The outage mode of whoever processes (read at each evaluation: the worker's may come later). */
  targetHealth: () => Pick<TargetHealthView, 'snapshot'>;
  clock: Pick<Clock, 'now'>;
  /** Where an incident opening (warn) or closing (info) is told, and a part that could not be read. */
  log: Logger;
  /** Default: each condition's default ({@link defaultAlertThresholds}), as the Bicep rules have them. */
  thresholds?: AlertThresholds;
  /** How long a closed incident stays listed, ms. Default 24 h. */
  keepClosedMs?: number;
}

/** Runs read per job: enough to count a long streak of failures, few enough to read each sample. */
const RUNS_READ = 20;

/**
 * The local host's incidents: evaluated at every gauge sample (every 15 s on the local host)
 * from that sample, the runs table and the outage mode, and kept **in memory, per host process**:
 * a restart begins with none (a condition that still holds opens again at the first sample).
 * What an operator sees here is what the Azure alert rules fire on (src/telemetry/alert-conditions.ts).
 */
export class IncidentMonitor {
  private incidents: Incident[] = [];
  private depths: DepthPoint[] = [];
  private readonly keepDepthsMs = Math.max(...ALERT_CONDITIONS.filter((c) => c.cause === 'queue').map((c) => c.windowMs));

  constructor(private readonly options: IncidentMonitorOptions) {}

  /** Evaluates the conditions on a new gauge sample and the host's state now; never throws. */
  async observe(sample: GaugeSample): Promise<void> {
    const { clock, log } = this.options;
    const now = clock.now();
    this.depths = this.depths.filter((p) => now.getTime() - p.at.getTime() <= this.keepDepthsMs);
    for (const d of sample.depths) this.depths.push({ at: now, queue: d.queue, role: d.role, active: d.active, deadLetter: d.deadLetter });
    const observation: IncidentObservation = {
      depths: this.depths,
      ...(sample.lagSampled ? { overdueSeconds: sample.overdueSeconds } : {}),
      ...(await this.runs()),
      ...this.outages(),
    };
    const changes = advanceIncidents(this.incidents, findConditions(observation, this.options.thresholds ?? defaultAlertThresholds(), now), now, this.keepClosedMs);
    this.incidents = changes.incidents;
    for (const i of changes.opened) log.warn(`incident opened: ${i.title}, ${i.causeKind} "${i.cause}": ${i.detail}`, { event: 'IncidentOpened', condition: i.condition, [i.causeKind]: i.cause });
    for (const i of changes.closed) log.info(`incident closed: ${i.title}, ${i.causeKind} "${i.cause}" (open since ${i.openedAt.toISOString()})`, { event: 'IncidentClosed', condition: i.condition, [i.causeKind]: i.cause });
  }

  /** Open incidents first (newest first), then those closed within the keep time (last closed first). */
  list(): Incident[] {
    const now = this.options.clock.now().getTime();
    return this.incidents.filter((i) => i.closedAt === null || now - i.closedAt.getTime() <= this.keepClosedMs);
  }

  private get keepClosedMs(): number {
    return this.options.keepClosedMs ?? KEEP_CLOSED_MS;
  }

  private async runs(): Promise<Pick<IncidentObservation, 'runs'>> {
    try {
      const runs = new Map<string, RunPoint[]>();
      for (const job of this.options.jobs()) {
        // A run recorded as interrupted by the next one never reported its end, as its metric never was.
        const latest = (await this.options.runLog.latest(job.name, RUNS_READ)).filter((r) => !r.interrupted);
        runs.set(job.name, latest.map((r) => ({ startedAt: r.startedAt, outcome: r.outcome, ...(r.error ? { error: r.error } : {}) })));
      }
      return { runs };
    } catch (err) {
      this.options.log.warn(`incidents: runs not readable, failing jobs not evaluated: ${errorMessage(err)}`);
      return {};
    }
  }

  private outages(): Pick<IncidentObservation, 'outages'> {
    try {
      return { outages: this.options.targetHealth().snapshot().map((o) => ({ connection: o.connection, since: o.since, failures: o.failures, error: o.error })) };
    } catch (err) {
      this.options.log.warn(`incidents: outage mode not readable: ${errorMessage(err)}`);
      return {};
    }
  }
}
