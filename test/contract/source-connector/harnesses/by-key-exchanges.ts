import type { RecordedExchange } from '../../../unit/connectors/odata/replay-fetch';

/** How a recorded OData harness answers reads by key. */
export interface ByKeyScript {
  /** The entity set's URL, e.g. `https://…/accounts`. */
  url: string;
  /** `$select` of the read, as detection selects. */
  select: string;
  /** Conditions after the keys' (`watermark ne null`, the job filter), as the service is sent them. */
  conditions?: readonly string[];
  /** `k1 eq … and k2 eq …` for a source key; undefined for a key that is no value of the key's type (never asked). */
  condition(sourceKey: string): string | undefined;
  /** The record the service holds under a source key, as it answers it; undefined when none. */
  found(sourceKey: string): Record<string, unknown> | undefined;
  /** `@odata.context` of the answers. */
  context: string;
}

/** Keys a request asks for (the connector's chunk: its URL stays short). */
const KEYS_A_REQUEST = 20;

/**
 * The requests `readByKeys` sends for `asked` (once each, in order, 20 keys a request, `$filter`
 * on the keys then the conditions, `odata.maxpagesize` of the keys asked) and the service's
 * answers: the records it holds among them.
 */
export function byKeyExchanges(asked: readonly string[], script: ByKeyScript): RecordedExchange[] {
  const keys = [...new Set(asked)].filter((key) => script.condition(key) !== undefined);
  const exchanges: RecordedExchange[] = [];
  for (let i = 0; i < keys.length; i += KEYS_A_REQUEST) {
    const chunk = keys.slice(i, i + KEYS_A_REQUEST);
    const any = chunk.map((key) => script.condition(key)!).map((c) => (chunk.length > 1 ? `(${c})` : c)).join(' or ');
    const filter = script.conditions?.length ? `(${any}) and ${script.conditions.join(' and ')}` : any;
    exchanges.push({
      note: `read by key, request ${exchanges.length + 1}`,
      request: { method: 'GET', url: `${script.url}?$filter=${filter}&$select=${script.select}`, headers: { prefer: `odata.maxpagesize=${chunk.length}` } },
      response: { status: 200, body: { '@odata.context': script.context, value: chunk.map((key) => script.found(key)).filter((row) => row !== undefined) } },
    });
  }
  return exchanges;
}
