import { parseWatermarkType, WatermarkValue, type WatermarkType } from '../model/watermark-value';

/**
 * Orders two `ChangeTracker` values of one job, to keep only the newest change of a record.
 *
 * With the job's watermark type (from `--config`) the values compare by that type. Without it,
 * or when a value does not fit the type: as date-times when both parse as one (offsets
 * normalised), else as decimal numbers when both are numbers (so `10` is after `9`), else
 * ordinally (UTF-16 code units). A missing value is older than any value.
 */
export function compareChangeTrackers(a: string | undefined, b: string | undefined, watermarkType?: string): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const known = watermarkType === undefined ? undefined : parseWatermarkType(watermarkType);
  const order: WatermarkType[] = known ? [known] : [];
  for (const type of ['datetime', 'number'] as const) if (type !== known) order.push(type);
  for (const type of order) {
    const result = tryCompare(type, a, b);
    if (result !== undefined) return result;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function tryCompare(type: WatermarkType, a: string, b: string): number | undefined {
  try {
    return Math.sign(WatermarkValue.compare(type, a, b));
  } catch {
    return undefined;
  }
}
