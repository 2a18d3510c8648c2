/**
 * A connection to a source or target system. `type` selects the connector; `settings` are the
 * connector's own (validated by it); secrets are only ever named, never stored: each entry of
 * `secrets` maps a connector setting to the app setting / environment variable that holds it.
 */
export interface Connection {
  name: string;
  /** Connector kind, e.g. `sqlite`, `postgres`, `odata`, `dataverse`, `businesscentral`. */
  type: string;
  settings: Record<string, unknown>;
  /** Connector setting → name of the app setting (env var) holding the secret value. */
  secrets: Record<string, string>;
  /** Most requests in flight at once against this system. Default 8. */
  maxConcurrency: number;
}
