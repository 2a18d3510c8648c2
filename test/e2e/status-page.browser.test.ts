import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { readSettings } from '../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import { statusRoutes } from '../../src/host/status/status-routes';
import { silentLogger } from '../../src/telemetry/logger';
import { seedDemo } from '../../src/demo/seed';
import { startTestAzurite, type TestAzurite } from '../support/azurite';

/** Debian's `chromium` (installed by `.ci/run`); without it this suite is skipped with a notice. */
const CHROMIUM = process.env.HIGHWATER_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const ONE_WAY_JOBS = ['crm-accounts-to-erp', 'crm-contacts-to-erp', 'crm-deleted-accounts-to-erp', 'erp-customer-number-to-crm'];
/** The demo's two-way pair expands into two more jobs, listed after the hand-written ones. */
const DEMO_JOBS = [...ONE_WAY_JOBS, 'account-profiles.a-to-b', 'account-profiles.b-to-a'];

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.log(`NOTICE: ${CHROMIUM} not found: the status page browser test is skipped (apt-get install chromium, or set HIGHWATER_CHROMIUM).`);

/**
 * The status page in a real browser: the local host runs the demo (detection driven by the test,
 * so the counts on the page are stable), headless Chromium opens `/`, checks jobs and counts
 * against the host, clicks "Run now" and sees the run appear.
 */
(haveChromium ? describe : describe.skip)('status page in a browser', () => {
  let azurite: TestAzurite;
  let dir: string;
  let host: LocalHost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-status-page-'));
    cpSync(path.join(__dirname, '../../examples/demo'), dir, { recursive: true, filter: (src) => !/\.db(-wal|-shm)?$/.test(src) });
    seedDemo(dir);
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log: silentLogger,
      noSchedule: true,
      settings: { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(dir, '.data') },
      extraRoutes: (ctx) => statusRoutes(ctx, { refreshMs: 60_000, configDir: dir }),
    });
    await host.runtime.detection.execute();
    expect(await host.drained({ timeoutMs: 120_000 })).toBe(true);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await azurite?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the demo’s jobs and the same counts as the host', async () => {
    const response = await page.goto(`${host.url}/`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('Highwater — local status');
    expect(await page.locator('#jobs tr[data-job]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job')))).toEqual(DEMO_JOBS);

    const { bus, settings } = host.runtime;
    for (const queue of [...Object.values(settings.queues.work), ...Object.values(settings.queues.transitive), settings.queues.ignored]) {
      const counts = await bus.counts(queue);
      const row = page.locator(`#queues tr[data-queue="${queue}"]`);
      expect([queue, await row.getAttribute('data-active'), await row.getAttribute('data-dead-letter')]).toEqual([queue, String(counts.active), String(counts.deadLetter)]);
    }
    // The demo parks one message in sbqignored and one in sbqtransitivenormal, and dead-letters one from sbqnormal.
    expect(await page.locator('#queues tr[data-queue="sbqignored"]').getAttribute('data-active')).toBe('1');
    expect(await page.locator('#queues tr[data-queue="sbqnormal"]').getAttribute('data-dead-letter')).toBe('1');

    const totals: Record<string, number> = {};
    for (const byOutcome of host.stats.processed.values()) for (const [outcome, n] of byOutcome) totals[outcome] = (totals[outcome] ?? 0) + n;
    expect(totals.Success).toBeGreaterThan(5000);
    for (const outcome of ['Success', 'Transitive', 'Ignored', 'Failed']) {
      expect([outcome, await page.locator(`#queues td[data-total-outcome="${outcome}"]`).textContent()]).toEqual([outcome, String(totals[outcome] ?? 0)]);
    }
    const charted = await page.locator('#throughput-chart g.bar').evaluateAll((bars) => bars.reduce((n, b) => n + Number(b.getAttribute('data-total')), 0));
    expect(charted).toBe(host.stats.attemptCount());
    const oneWayRuns = await page.locator('#runs tr[data-run-job]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-job')));
    expect(oneWayRuns.filter((job) => ONE_WAY_JOBS.includes(job ?? ''))).toHaveLength(3);
    expect(await page.locator('#failures tr[data-failure-count]').count()).toBeGreaterThanOrEqual(1);
    // The dead-lettered C-0042 is among the failures; the response job is fed, not idle.
    expect(await page.locator('#failures tr[data-dead-lettered="1"]').count()).toBe(1);
    const responseJob = page.locator('#jobs tr[data-job="erp-customer-number-to-crm"]');
    expect(await responseJob.textContent()).toContain('fed by responses of crm-accounts-to-erp');
    expect(await responseJob.locator('button').count()).toBe(0);
  });

  it('"Run now" runs the job and the run appears on the page', async () => {
    await page.goto(`${host.url}/`);
    const manualRuns = page.locator('#runs tr[data-run-job="crm-accounts-to-erp"][data-trigger="manual"]');
    expect(await manualRuns.count()).toBe(0);
    const accountRuns = page.locator('#runs tr[data-run-job="crm-accounts-to-erp"]');
    const before = await accountRuns.count();
    await page.locator('#jobs button[data-run-job="crm-accounts-to-erp"]').click();
    await page.locator('#action-status', { hasText: /^crm-accounts-to-erp: Succeeded, \d+ detected, \d+ sent/ }).waitFor({ timeout: 20_000 });
    await manualRuns.first().waitFor({ timeout: 10_000 });
    expect(await manualRuns.count()).toBe(1);
    expect(await accountRuns.count()).toBe(before + 1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'status-page.png'), fullPage: true });
  });

  it('the dead-letter view lists the dead-lettered demo message and links to the mover’s dry run', async () => {
    await page.goto(`${host.url}/dead-letters`);
    const section = page.locator('section[data-source="sbqnormal / dead-letter"]');
    expect(await section.getAttribute('data-count')).toBe('1');
    expect(await section.locator('tr[data-reason-count]').count()).toBe(1);
    expect(await section.locator('tr[data-reason-count] code').first().textContent()).toBe('C-0042');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'dead-letters-page.png'), fullPage: true });

    await section.locator('a.report').click();
    const report = page.locator('#mover-report');
    await report.waitFor();
    expect(await report.getAttribute('data-exit-code')).toBe('0');
    const text = (await report.locator('pre').textContent()) ?? '';
    expect(text).toMatch(/^Dry run: nothing is changed/);
    expect(text).toContain('sbqnormal');
    expect((await host.runtime.bus.counts('sbqnormal')).deadLetter).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'mover-dry-run.png'), fullPage: true });
  });
});
