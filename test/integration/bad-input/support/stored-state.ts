import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { TableClient, TableServiceClient } from '@azure/data-tables';

/**
 * Everything a command could have changed, as one comparable value: every entity of every table
 * with its ETag (so that rewriting a row with the same values still shows), and every file under
 * the local data folder with its size and content hash (the local bus, metrics).
 */
export async function storedState(storageConnectionString: string, dataDir?: string): Promise<Record<string, unknown>> {
  const options = { allowInsecureConnection: true };
  const service = TableServiceClient.fromConnectionString(storageConnectionString, options);
  const tables: Record<string, unknown[]> = {};
  for await (const table of service.listTables()) {
    const name = table.name ?? '';
    const client = TableClient.fromConnectionString(storageConnectionString, name, options);
    tables[name] = [];
    for await (const entity of client.listEntities()) tables[name].push(entity);
  }
  return { tables, files: dataDir ? filesUnder(dataDir) : {} };
}

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}
