import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTimeSpan, readRunSettings, readTimeBudgetMs, retryDelayMs } from '../../../src/detect/run-settings';
import { readSettings } from '../../../src/platform/settings';

describe('run settings', () => {
  const settings = { retryBaseMs: 30_000, retryMaxMs: 1_800_000 };

  it('doubles the retry wait per consecutive failure and caps it', () => {
    expect([0, 1, 2, 3, 6, 7, 50].map((n) => retryDelayMs(n, settings))).toEqual([0, 30_000, 60_000, 120_000, 960_000, 1_800_000, 1_800_000]);
  });

  it('reads the settings with their defaults, and names a bad one', () => {
    expect(readRunSettings({})).toEqual({ checkpointIntervalMs: 5_000, retryBaseMs: 30_000, retryMaxMs: 1_800_000, queueDepthLimit: 5_000 });
    expect(readRunSettings({ HIGHWATER_RETRY_BASE_SECONDS: '5', HIGHWATER_RETRY_MAX_SECONDS: '60', HIGHWATER_RESUME_CHECKPOINT_SECONDS: '0', HIGHWATER_QUEUE_DEPTH_LIMIT: '2000' })).toEqual({
      checkpointIntervalMs: 0, retryBaseMs: 5_000, retryMaxMs: 60_000, queueDepthLimit: 2_000,
    });
    expect(readRunSettings({ HIGHWATER_QUEUE_DEPTH_LIMIT: '0' }).queueDepthLimit).toBe(0);
    expect(readRunSettings({ HIGHWATER_QUEUE_DEPTH_LIMIT: ' ' }).queueDepthLimit).toBe(5_000);
    expect(() => readRunSettings({ HIGHWATER_RETRY_BASE_SECONDS: 'soon' })).toThrow('HIGHWATER_RETRY_BASE_SECONDS: expected a number of seconds ≥ 0, got "soon"');
    for (const bad of ['-1', '2.5', '1e3', 'many', '10000001']) {
      expect(() => readRunSettings({ HIGHWATER_QUEUE_DEPTH_LIMIT: bad })).toThrow(
        new Error(`HIGHWATER_QUEUE_DEPTH_LIMIT: expected a whole number of messages from 0 (no limit) to 10000000, got "${bad}"`),
      );
    }
  });

  it('takes two thirds of functionTimeout as the time budget unless set', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-budget-'));
    try {
      expect(readTimeBudgetMs({}, dir)).toBe(20 * 60_000);
      fs.writeFileSync(path.join(dir, 'host.json'), JSON.stringify({ functionTimeout: '00:10:00' }));
      expect(readTimeBudgetMs({}, dir)).toBe(400_000);
      expect(readTimeBudgetMs({ AzureFunctionsJobHost__functionTimeout: '00:05:00' }, dir)).toBe(200_000);
      expect(readTimeBudgetMs({ HIGHWATER_RUN_BUDGET_SECONDS: '90' }, dir)).toBe(90_000);
      expect(readTimeBudgetMs({ HIGHWATER_RUN_BUDGET_SECONDS: '0' }, dir)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(readTimeBudgetMs({}, path.resolve(__dirname, '../../..'))).toBe(20 * 60_000); // the app's host.json: 00:30:00
    expect([parseTimeSpan('1.02:00:00'), parseTimeSpan('-1'), parseTimeSpan('00:00:30')]).toEqual([93_600_000, undefined, 30_000]);
  });
});

describe('run settings at the start of a runtime', () => {
  const saved = process.env.HIGHWATER_QUEUE_DEPTH_LIMIT;
  afterEach(() => (saved === undefined ? delete process.env.HIGHWATER_QUEUE_DEPTH_LIMIT : (process.env.HIGHWATER_QUEUE_DEPTH_LIMIT = saved)));

  it('a bad HIGHWATER_QUEUE_DEPTH_LIMIT stops the runtime before it opens storage or the bus', async () => {
    const { createRuntime } = await import('../../../src/runtime/runtime');
    process.env.HIGHWATER_QUEUE_DEPTH_LIMIT = 'lots';
    const opened: string[] = [];
    const storage = new Proxy({}, { get: (_, name) => (opened.push(String(name)), undefined) });
    await expect(createRuntime({ storage: storage as never, settings: readSettings({}) })).rejects.toThrow(
      'HIGHWATER_QUEUE_DEPTH_LIMIT: expected a whole number of messages from 0 (no limit) to 10000000, got "lots"',
    );
    expect(opened).toEqual([]);
  });
});
