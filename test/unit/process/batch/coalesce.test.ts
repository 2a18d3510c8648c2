import { JobActionType, type Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import { coalesce } from '../../../../src/process/batch/coalesce';
import type { Work } from '../../../../src/process/batch/triage';

const mapping = { name: 'm', source: { entity: 's', key: ['id'] }, target: { entity: 't', key: ['id'] }, fields: [] } as Mapping;
const job = (name: string, type = 'datetime') => ({ name, watermark: { type, field: 'modified' } }) as unknown as Job;

let index = 0;
function work(id: string, changeTracker: string, action = JobActionType.NewUpdate, sequenceNumber = String(index + 1), j = job('j')): Work {
  const message = { jobName: j.name, action, sourceKey: id, targetKey: { id }, changeTracker, fields: {} } as unknown as QueueMessage;
  return { index: index++, item: { message: { sequenceNumber } as never, settler: {} as never }, message, job: j, mapping, attempt: 1 };
}

const ids = (ws: Work[]) => ws.map((w) => `${w.message.sourceKey}@${w.message.changeTracker}:${w.message.action}`);

describe('coalesce', () => {
  beforeEach(() => (index = 0));

  it('keeps the newest change per record, in batch order, and supersedes the rest', () => {
    const { winners, superseded } = coalesce([
      work('A', '2026-01-01T00:00:02Z'),
      work('B', '2026-01-01T00:00:01Z'),
      work('A', '2026-01-01T00:00:01Z'),
      work('A', '2026-01-01T00:00:03Z'),
    ]);
    expect(ids(winners)).toEqual(['B@2026-01-01T00:00:01Z:NewUpdate', 'A@2026-01-01T00:00:03Z:NewUpdate']);
    expect(ids(superseded).sort()).toEqual(['A@2026-01-01T00:00:01Z:NewUpdate', 'A@2026-01-01T00:00:02Z:NewUpdate']);
  });

  it('a delete after an upsert stays a delete; an upsert after a delete becomes the upsert', () => {
    const a = coalesce([work('A', '2026-01-01T00:00:01Z'), work('A', '2026-01-01T00:00:02Z', JobActionType.Delete)]);
    expect(ids(a.winners)).toEqual(['A@2026-01-01T00:00:02Z:Delete']);
    const b = coalesce([work('B', '2026-01-01T00:00:01Z', JobActionType.Delete), work('B', '2026-01-01T00:00:02Z')]);
    expect(ids(b.winners)).toEqual(['B@2026-01-01T00:00:02Z:NewUpdate']);
  });

  it('breaks a tie of change trackers by the higher sequence number', () => {
    const { winners } = coalesce([work('A', '2026-01-01T00:00:01Z', JobActionType.NewUpdate, '12'), work('A', '2026-01-01T00:00:01Z', JobActionType.Delete, '9')]);
    expect(ids(winners)).toEqual(['A@2026-01-01T00:00:01Z:NewUpdate']);
  });

  it('compares trackers by the watermark type, not as text', () => {
    const j = job('n', 'number');
    const { winners } = coalesce([work('A', '10', JobActionType.NewUpdate, '1', j), work('A', '9', JobActionType.NewUpdate, '2', j)]);
    expect(ids(winners)).toEqual(['A@10:NewUpdate']);
  });

  it('never coalesces across jobs, nor actions to invoke', () => {
    const { winners, superseded } = coalesce([
      work('A', '2026-01-01T00:00:01Z', JobActionType.NewUpdate, '1', job('j1')),
      work('A', '2026-01-01T00:00:02Z', JobActionType.NewUpdate, '2', job('j2')),
      work('B', '2026-01-01T00:00:01Z', JobActionType.InvokeAction),
      work('B', '2026-01-01T00:00:02Z', JobActionType.InvokeAction),
    ]);
    expect(winners).toHaveLength(4);
    expect(superseded).toHaveLength(0);
  });
});
