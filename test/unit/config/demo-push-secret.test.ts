import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_PUSH_SECRET_FILE, DEMO_PUSH_SECRET_SETTING, demoAccountNotification, demoPushSecret } from '../../../src/demo/push';

describe('the demo push secret', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-demo-secret-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is generated once into the demo folder (owner-only) and read back after', () => {
    const first = demoPushSecret(dir, {});
    expect(first).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(path.join(dir, DEMO_PUSH_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(demoPushSecret(dir, {})).toBe(first);
    expect(readFileSync(path.join(dir, DEMO_PUSH_SECRET_FILE), 'utf8').trim()).toBe(first);
  });

  it('is the app setting when it is set (no file written)', () => {
    expect(demoPushSecret(dir, { [DEMO_PUSH_SECRET_SETTING]: 'from-env' })).toBe('from-env');
    expect(() => statSync(path.join(dir, DEMO_PUSH_SECRET_FILE))).toThrow();
  });
});

describe('the demo notification', () => {
  it('is a generic notification carrying the account as the mapping reads it', () => {
    const body = demoAccountNotification({ id: 'A-0001', name: 'Acme', city: 'Köln', modified_at: '2026-12-06T08:00:00.000Z' }, new Date('2026-12-06T08:00:01Z'));
    expect(JSON.parse(body)).toEqual({
      sentAt: '2026-12-06T08:00:01.000Z',
      changes: [{ action: 'upsert', record: { id: 'A-0001', name: 'Acme', city: 'Köln', modified_at: '2026-12-06T08:00:00.000Z' } }],
    });
  });
});
