import { TargetHealth } from '../../../src/process/target-health';

describe('TargetHealth (outage mode)', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

  it('opens an outage after `threshold` failed groups in a row, then lets one probe through per interval', () => {
    const h = new TargetHealth({ threshold: 3, probeEveryMs: 30_000, minMessages: 1 });
    expect(h.failed('erp', t(0), 'down', ['m'])).toBeUndefined();
    expect(h.failed('erp', t(1), 'down', ['m'])).toBeUndefined();
    expect(h.admit('erp', t(1))).toEqual({ kind: 'all' });
    expect(h.failed('erp', t(2), 'down', ['m'])).toBe('outageStarted');
    expect(h.admit('erp', t(3))).toEqual({ kind: 'none', until: t(32) });
    expect(h.admit('crm', t(3))).toEqual({ kind: 'all' });
    expect(h.snapshot()).toEqual([{ connection: 'erp', since: t(2), nextProbeAt: t(32), error: 'down', failures: 3 }]);
    expect(h.admit('erp', t(32))).toEqual({ kind: 'probe' });
    // One probe per interval, also when the first never reports.
    expect(h.admit('erp', t(33))).toEqual({ kind: 'none', until: t(62) });
    expect(h.failed('erp', t(40), 'still down', ['m'])).toBeUndefined();
    expect(h.admit('erp', t(41))).toEqual({ kind: 'none', until: t(70) });
    expect(h.admit('erp', t(70))).toEqual({ kind: 'probe' });
    expect(h.succeeded('erp')).toBe('outageEnded');
    expect(h.admit('erp', t(71))).toEqual({ kind: 'all' });
    expect(h.snapshot()).toEqual([]);
  });

  it('opens an outage at the first group that failed with a configuration error, whatever its size', () => {
    const h = new TargetHealth({ threshold: 5, probeEveryMs: 30_000 });
    expect(h.inOutage('erp')).toBe(false);
    expect(h.failed('erp', t(0), 'no such column: full_name', ['m'], 'config')).toBe('outageStarted');
    expect(h.inOutage('erp')).toBe(true);
    expect(h.snapshot()).toEqual([{ connection: 'erp', since: t(0), nextProbeAt: t(30), error: 'no such column: full_name', failures: 1 }]);
    // A failed probe keeps it open (and counts), a success ends it.
    expect(h.failed('erp', t(30), 'no such column: full_name', ['m'], 'config')).toBeUndefined();
    expect(h.snapshot()[0].failures).toBe(2);
    expect(h.succeeded('erp')).toBe('outageEnded');
    expect(h.inOutage('erp')).toBe(false);
  });

  it('a success between failures starts the count again', () => {
    const h = new TargetHealth({ threshold: 2, minMessages: 1 });
    h.failed('erp', t(0), 'x', ['m']);
    expect(h.succeeded('erp')).toBeUndefined();
    expect(h.failed('erp', t(1), 'x', ['m'])).toBeUndefined();
    expect(h.failed('erp', t(2), 'x', ['m'])).toBe('outageStarted');
  });
});

describe('TargetHealth and one poison message', () => {
  it('does not open an outage for groups of one and the same message', () => {
    const h = new TargetHealth({ threshold: 3 });
    const at = new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < 10; i++) expect(h.failed('erp', at, 'timeout', ['poison'])).toBeUndefined();
    expect(h.admit('erp', at)).toEqual({ kind: 'all' });
    expect(h.failed('erp', at, 'timeout', ['a', 'b'])).toBe('outageStarted');
  });
});

describe('TargetHealth and the probe in flight', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  function inOutage(): TargetHealth {
    const h = new TargetHealth({ threshold: 1, minMessages: 1, probeEveryMs: 30_000 });
    h.failed('erp', t(0), 'down', ['m']);
    return h;
  }

  it('has none before a probe is admitted, one after, and resolves it when the probe reports', async () => {
    const h = inOutage();
    expect(h.probeInFlight('erp')).toBeUndefined();
    expect(h.admit('erp', t(30))).toEqual({ kind: 'probe' });
    const probe = h.probeInFlight('erp');
    expect(probe).toBeInstanceOf(Promise);
    expect(h.probeInFlight('crm')).toBeUndefined();
    let reported = false;
    void probe!.then(() => (reported = true));
    await Promise.resolve();
    expect(reported).toBe(false);
    expect(h.succeeded('erp')).toBe('outageEnded');
    await probe;
    expect(reported).toBe(true);
    expect(h.probeInFlight('erp')).toBeUndefined();
    expect(h.admit('erp', t(31))).toEqual({ kind: 'all' });
  });

  it('resolves it when the probe failed as a group, and when it ended without a verdict on the target', async () => {
    const h = inOutage();
    h.admit('erp', t(30));
    const failedProbe = h.probeInFlight('erp')!;
    h.failed('erp', t(31), 'still down', ['m']);
    await failedProbe;
    expect(h.probeInFlight('erp')).toBeUndefined();
    expect(h.admit('erp', t(32))).toEqual({ kind: 'none', until: t(61) });
    h.admit('erp', t(61));
    const silent = h.probeInFlight('erp')!;
    h.probeEnded('erp');
    await silent;
    expect(h.probeInFlight('erp')).toBeUndefined();
    expect(h.snapshot()).toHaveLength(1);
  });
});

describe('TargetHealth and a probe that outlives its interval', () => {
  it('does not let the old probe end its successor', async () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const h = new TargetHealth({ threshold: 1, minMessages: 1, probeEveryMs: 30_000 });
    h.failed('erp', t(0), 'down', ['m']);
    h.admit('erp', t(30));
    const first = h.probeInFlight('erp')!;
    // Still running at the next probe time: a second probe is admitted.
    expect(h.admit('erp', t(60))).toEqual({ kind: 'probe' });
    const second = h.probeInFlight('erp')!;
    expect(second).not.toBe(first);
    await first; // the first one's waiters were let go when its successor was admitted
    h.probeEnded('erp', first);
    expect(h.probeInFlight('erp')).toBe(second);
    h.probeEnded('erp', second);
    expect(h.probeInFlight('erp')).toBeUndefined();
  });
});

describe('TargetHealth: how long a message waits, and the recovery after an outage', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + s * 1000);
  function inOutageSince0(): TargetHealth {
    const h = new TargetHealth({ threshold: 1, minMessages: 1, probeEveryMs: 30_000, maxDeferMs: 300_000 });
    h.failed('erp', t(0), 'down', ['m']);
    return h;
  }

  it('defers to the next probe while the outage is young, then as long as it lasted, at most maxDeferMs', () => {
    const h = inOutageSince0();
    expect(h.deferUntil('erp', t(10))).toEqual(t(30));
    h.admit('erp', t(30));
    h.failed('erp', t(31), 'down', ['m']); // next probe at 61
    expect(h.deferUntil('erp', t(40))).toEqual(t(80));
    expect(h.deferUntil('erp', t(200))).toEqual(t(400));
    expect(h.deferUntil('erp', t(1_000))).toEqual(t(1_300));
    expect(h.deferUntil('erp', t(5_000))).toEqual(t(5_300));
  });

  it('recovers until the last deferred message is due, not while in outage, nothing without deferrals', () => {
    const h = inOutageSince0();
    h.deferUntil('erp', t(1_000));
    expect(h.recoveringUntil('erp', t(1_001))).toBeUndefined(); // still in outage
    h.admit('erp', t(1_010));
    expect(h.succeeded('erp')).toBe('outageEnded');
    expect(h.recoveringUntil('erp', t(1_011))).toEqual(t(1_300));
    expect(h.recoveringUntil('erp', t(1_299))).toEqual(t(1_300));
    expect(h.recoveringUntil('erp', t(1_300))).toBeUndefined();
    expect(h.recoveringUntil('erp', t(1_200))).toBeUndefined(); // forgotten once over
    expect(new TargetHealth().recoveringUntil('crm', t(0))).toBeUndefined();
  });
});
