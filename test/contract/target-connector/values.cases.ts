import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, deserializeQueueMessage, type JsonValue, serializeQueueMessage } from '../../../src/model/queue-message';
import { BYTES_VALUE, DECIMAL_VALUE, exactJson, INSTANT_UTC, INT64_VALUES, JSON_EXACT_TEXT, JSON_VALUE, matrixRecord, type ValueKind } from '../value-matrix';
import { type ContractContext, job, shownOutcome, applied, failed } from './context';

/** A target writes every kind of the matrix exactly, and refuses (naming the column) a value it cannot hold exactly. */
export function valueCases(ctx: ContractContext): void {
  ctx.caseIt(['exactValues'])('writes 64-bit integers, exact decimals, bytes, instants with microseconds and JSON exactly, from the JSON body', async () => {
    const p = await ctx.prepareValues();
    try {
      const kinds = Object.keys(p.columns) as ValueKind[];
      const messages = INT64_VALUES.map((_, i) => {
        const values = matrixRecord(i);
        const fields: Record<string, JsonValue> = { [p.key]: i + 1 };
        for (const kind of kinds) fields[p.columns[kind] as string] = values[kind];
        const message = createQueueMessage({ jobName: job.name, action: JobActionType.NewUpdate, sourceKey: String(i + 1), targetKey: { [p.key]: i + 1 }, changeTracker: '1', fields });
        return deserializeQueueMessage(Buffer.from(serializeQueueMessage(message), 'utf8'));
      });
      const outcomes = await p.target.applyBatch({ job, mapping: p.mapping, action: JobActionType.NewUpdate, messages });
      expect(outcomes.map(shownOutcome)).toEqual(messages.map(() => applied));
      const expected = INT64_VALUES.map((int64, i) => Object.fromEntries(kinds.map((kind) => [kind, kind === 'int64' ? int64 : i === 0 ? STORED[kind] : null])));
      expect(await Promise.all(INT64_VALUES.map((_, i) => p.read(i + 1)))).toEqual(expected);
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['exactValues'])('fails an item whose value a column cannot hold exactly alone (PermanentError naming the column)', async () => {
    const p = await ctx.prepareValues();
    try {
      const items = [...p.inexact.map(({ column, value }) => ({ [column]: value })), {}];
      const messages = items.map((fields, i) =>
        createQueueMessage({ jobName: job.name, action: JobActionType.NewUpdate, sourceKey: String(i + 1), targetKey: { [p.key]: i + 1 }, changeTracker: '1', fields: { [p.key]: i + 1, ...fields } }),
      );
      const outcomes = await p.target.applyBatch({ job, mapping: p.mapping, action: JobActionType.NewUpdate, messages });
      expect(outcomes.map(shownOutcome)).toEqual([...p.inexact.map(() => failed('PermanentError')), applied]);
      p.inexact.forEach(({ column }, i) => expect((outcomes[i] as { error: Error }).error.message).toContain(`${p.columnWord ?? 'column'} "${column}"`));
    } finally {
      await p.done();
    }
  });
}

/** What {@link PreparedValueTarget.read} gives for the first record. */
const STORED: Record<ValueKind, unknown> = {
  int64: undefined,
  decimal: DECIMAL_VALUE,
  bytes: BYTES_VALUE.toString('hex'),
  instant: INSTANT_UTC,
  json: JSON_VALUE,
  jsonExact: exactJson(JSON_EXACT_TEXT),
};
