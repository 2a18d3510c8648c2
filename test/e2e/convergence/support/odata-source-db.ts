import { CAP_TABLES, startCapSource, type CapSource, type CdsDb } from './cap-source-server';
import { sleep, type ItemValues, type SourceDb, type SourceState, type WriteOp } from './source-db';

/** The server's clock at whole seconds, as the connector reads `Edm.DateTimeOffset` values back. */
const serverSecond = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

/**
 * The OData source: a CAP service over in-memory SQLite in this process. Every transaction is
 * stamped with the server's clock (this process's: the host reads the same machine's time from
 * the service's `Date` header) cut to the whole second, taken inside the transaction, as
 * Dataverse's `modifiedon` and Business Central's `lastModifiedDateTime` are: dozens of
 * transactions share a second, and rows keep arriving in a second a detection run already read.
 * A late transaction waits before it begins (the database has one connection: a transaction
 * held open would stall the service's reads too).
 */
export class OdataSourceDb implements SourceDb {
  readonly kind = 'odata' as const;

  private constructor(private readonly server: CapSource) {}

  static async create(): Promise<OdataSourceDb> {
    return new OdataSourceDb(await startCapSource());
  }

  /** Service root the host's `odata` connection reads. */
  get serviceUrl(): string {
    return this.server.url;
  }

  stamp(): undefined {
    return undefined;
  }

  async write(op: WriteOp, _at: string | undefined, lateMs: number): Promise<void> {
    if (lateMs > 0) await sleep(lateMs);
    await this.server.db.tx(async (tx) => {
      await this.statements(tx, op, serverSecond());
    });
  }

  private async statements(tx: CdsDb, op: WriteOp, stamp: string): Promise<void> {
    const item = (row: { id: string } & ItemValues) => [row.category_id, row.name, row.qty, row.note, stamp, row.id];
    switch (op.kind) {
      case 'insertCategory':
        await tx.run(`INSERT INTO ${CAP_TABLES.categories} (id, name, modified_at) VALUES (?, ?, ?)`, [op.id, op.name, stamp]);
        return;
      case 'insertItems':
        for (const row of op.rows) {
          await tx.run(`INSERT INTO ${CAP_TABLES.items} (category_id, name, qty, note, modified_at, id) VALUES (?, ?, ?, ?, ?, ?)`, item(row));
        }
        return;
      case 'updateItems':
        for (const row of op.rows) {
          await tx.run(`UPDATE ${CAP_TABLES.items} SET category_id = ?, name = ?, qty = ?, note = ?, modified_at = ? WHERE id = ?`, item(row));
        }
        return;
      case 'deleteItems':
        for (const id of op.ids) {
          await tx.run(`DELETE FROM ${CAP_TABLES.items} WHERE id = ?`, [id]);
          await tx.run(`INSERT INTO ${CAP_TABLES.deletedItems} (id, deleted_at) VALUES (?, ?)`, [id, stamp]);
        }
    }
  }

  async readState(): Promise<SourceState> {
    const rows = async <T>(sql: string) => (await this.server.db.run(sql)) as T[];
    const categories = await rows<{ id: string; name: string; modified_at: string }>(`SELECT id, name, modified_at FROM ${CAP_TABLES.categories}`);
    const items = await rows<ItemValues & { id: string; modified_at: string }>(
      `SELECT id, category_id, name, qty, note, modified_at FROM ${CAP_TABLES.items}`,
    );
    const tombstones = await rows<{ id: string; deleted_at: string }>(`SELECT id, deleted_at FROM ${CAP_TABLES.deletedItems}`);
    return {
      categories: new Map(categories.map(({ id, ...rest }) => [id, rest])),
      items: new Map(items.map(({ id, ...rest }) => [id, rest])),
      tombstones: new Map(tombstones.map((t) => [t.id, t.deleted_at])),
    };
  }

  /** Stops serving (the model and its in-memory database stay for the next rig in this process). */
  async close(): Promise<void> {
    await this.server.stop();
  }
}
