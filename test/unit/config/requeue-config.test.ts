import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfigFolder } from '../../../src/config/load-config';
import { loadRequeueConfig, requeueFromData } from '../../../src/config/requeue-config';

/** The optional requeue file of a config folder: defaults, and every problem named with file and path. */
describe('requeue file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-requeue-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const issues = (data: unknown) => requeueFromData(data, 'requeue.yaml', dir).issues.map((i) => `${i.path}: ${i.message}`);

  it('is off when absent, and fills the defaults when present', async () => {
    expect(await loadRequeueConfig(dir)).toBeUndefined();
    writeFileSync(path.join(dir, 'requeue.yaml'), 'requeue: {}\n');
    expect(await loadRequeueConfig(dir)).toEqual({ enabled: false, schedule: '0 */15 * * * *', maxRequeues: 5, maxMessages: 1000, file: 'requeue.yaml' });
  });

  it('names each wrong property with its path', () => {
    expect(issues({ requeue: { enabled: 'yes', schedule: '* * *', maxRequeues: 0, extra: 1, maxMessages: 1.5 } })).toEqual([
      'requeue.enabled: expected a boolean, got string',
      'requeue.schedule: invalid NCRONTAB "* * *": expected 6 fields (second minute hour day month weekday), got 3',
      'requeue.maxRequeues: must be at least 1',
      'requeue.maxMessages: expected an integer, got 1.5',
      'requeue.extra: unknown property',
    ]);
    expect(issues({ requeue: { maxRequeues: 1001, rules: '' } })).toEqual(['requeue.maxRequeues: must be at most 1000', 'requeue.rules: must not be empty']);
    expect(issues({ other: 1 })).toEqual(['requeue: required', 'other: unknown property']);
    expect(issues([])).toEqual([': expected an object with a top-level "requeue" section, got list']);
  });

  it('resolves the rules file against the config folder and checks it exists and parses', async () => {
    expect(issues({ requeue: { rules: 'nope.yaml' } })).toEqual(['requeue.rules: rules file not found: nope.yaml (relative to the config folder)']);
    writeFileSync(path.join(dir, 'rules.yaml'), 'rules:\n  - match: {}\n    action: Maybe\n');
    writeFileSync(path.join(dir, 'requeue.yaml'), 'requeue: { enabled: true, rules: rules.yaml }\n');
    await expect(loadRequeueConfig(dir)).rejects.toThrow(
      'requeue.yaml: requeue.rules: invalid rules file: rules.yaml: rules[0].action: expected one of Resubmit, None, Skip, got string "Maybe"',
    );
    writeFileSync(path.join(dir, 'rules.yaml'), 'rules:\n  - match: { errorType: TransitiveError }\n    action: Resubmit\n');
    expect(await loadRequeueConfig(dir)).toMatchObject({ enabled: true, rules: 'rules.yaml', rulesFile: path.join(dir, 'rules.yaml') });
  });

  it('refuses two requeue files, and is reported by loadConfigFolder with the other files', async () => {
    writeFileSync(path.join(dir, 'requeue.yaml'), 'requeue: { maxRequeues: -1 }\n');
    for (const kind of ['connections', 'mappings', 'jobs']) writeFileSync(path.join(dir, `${kind}.yaml`), `${kind}: []\n`);
    await expect(loadConfigFolder(dir)).rejects.toThrow('requeue.yaml: requeue.maxRequeues: must be at least 1');
    writeFileSync(path.join(dir, 'requeue.json'), '{"requeue": {}}');
    await expect(loadRequeueConfig(dir)).rejects.toThrow(`${dir}: more than one requeue file (requeue.json, requeue.yaml); keep exactly one`);
  });

  it('the demo turns it on', async () => {
    expect(await loadRequeueConfig(path.join(__dirname, '..', '..', '..', 'examples', 'demo'))).toMatchObject({ enabled: true, schedule: '0 */5 * * * *', maxRequeues: 5 });
  });
});
