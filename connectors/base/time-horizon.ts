/**
 * The settled horizon of a service whose clock is only seen from outside (an OData service: the
 * `Date` header of its answer): changes stamped before it have committed and will not be joined
 * by another change stamped before it. The service's time minus the settle margin, cut to the
 * whole second (stamps of second resolution, such as Dataverse `modifiedon` and Business Central
 * `lastModifiedDateTime`, are settled only once their second is over), or to the day for dates.
 * SQL sources read theirs from the database (connectors/sql/settled-horizon.ts).
 */

/** OData services stamp inside their own write pipeline (plug-ins, triggers): a wider margin than SQL's. */
export const SERVICE_SETTLE_SECONDS = 5;

/**
 * The service's clock: its `Date` header (whole seconds) when given and readable, else ours.
 * The header wins because the stamps are the service's: a skewed local clock must not move the horizon.
 */
export function serviceNow(dateHeader: string | null | undefined, ours: Date): Date {
  const parsed = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  return Number.isFinite(parsed) ? new Date(parsed) : ours;
}

/**
 * The canonical exclusive horizon for a watermark type: `YYYY-MM-DDTHH:MM:SS.0000000Z` for
 * datetimes, `YYYY-MM-DD` for dates; undefined for types without a time axis.
 */
export function timeHorizon(type: string | undefined, now: Date, settleSeconds: number): string | undefined {
  if (type !== 'datetime' && type !== 'date') return undefined;
  const settled = new Date(now.getTime() - Math.max(0, settleSeconds) * 1000).toISOString();
  return type === 'date' ? settled.slice(0, 10) : `${settled.slice(0, 19)}.0000000Z`;
}

/** How far beyond the horizon the newest stamp may lie before a run says so: clock skew is seconds, not an hour. */
const FUTURE_TOLERANCE_MS = 60 * 60 * 1000;

/**
 * A warning when the newest change is stamped more than an hour after the source's settled
 * horizon: such rows (a wrong clock, a hand-edited stamp) wait until their time comes — before
 * the horizon existed they moved the watermark into the future and every later change was lost.
 * @param upper the column's maximum, canonical; @param before the horizon, canonical.
 */
export function futureStampWarning(jobName: string, upper: string, before: string): string | undefined {
  const time = (canonical: string) => Date.parse(canonical.length === 10 ? `${canonical}T00:00:00Z` : `${canonical.slice(0, 19)}Z`);
  const ahead = time(upper) - time(before);
  if (!(ahead > FUTURE_TOLERANCE_MS)) return undefined;
  return `job "${jobName}": the newest change is stamped ${upper}, ${Math.round(ahead / 60_000)} min after the source's clock: changes stamped in the future are read when their time comes (check the writer's clock or the stamp)`;
}
