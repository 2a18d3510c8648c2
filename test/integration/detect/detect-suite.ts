import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { openRig, type DetectRig, type RigOptions } from './detect-rig';
import { openSourceDb, type EngineName, type SourceDb } from './source-db';

export interface DetectSuite {
  /** The suite's source database (open from `beforeAll` to `afterAll`). */
  readonly db: SourceDb;
  /** Opens a rig on the suite's database and Azurite; it is closed after the test. */
  open(options: Omit<RigOptions, 'db' | 'storageConnectionString'>): Promise<DetectRig>;
}

/**
 * The lifecycle every detection integration suite shares, registered in the calling `describe`:
 * one Azurite and one source database of `engine` in a temporary folder for the suite, and the
 * rig a test opened closed after it.
 */
export function detectSuite(engine: EngineName): DetectSuite {
  let azurite: TestAzurite | undefined;
  let dir: string | undefined;
  let db: SourceDb | undefined;
  let rig: DetectRig | undefined;
  beforeAll(async () => {
    azurite = await startTestAzurite();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-detect-'));
    db = await openSourceDb(engine, dir);
  });
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });
  afterAll(async () => {
    await db?.close();
    await azurite?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get db() {
      if (!db) throw new Error('the suite database opens in beforeAll');
      return db;
    },
    async open(options) {
      if (!azurite || !db) throw new Error('the suite opens Azurite and its database in beforeAll');
      rig = await openRig({ ...options, db, storageConnectionString: azurite.connectionString });
      return rig;
    },
  };
}
