/** A transformation applied to a mapped value, in order. */
export type SourceOperation =
  | { op: 'trim' }
  | { op: 'upper' }
  | { op: 'lower' }
  /** Joins the current value with the values of other source fields. */
  | { op: 'concat'; fields: string[]; separator?: string }
  /** Formats a date/time with a luxon format string, e.g. `yyyy-MM-dd`. */
  | { op: 'formatDate'; format: string; zone?: string }
  /** Formats a number with a fixed number of decimals. */
  | { op: 'formatNumber'; decimals: number }
  /** Replaces null, undefined or an empty string. */
  | { op: 'default'; value: string | number | boolean | null }
  | { op: 'constant'; value: string | number | boolean | null }
  /** Maps values (compared as strings); unmatched values become `default` when given, else stay. */
  | { op: 'valueMap'; map: Record<string, string | number | boolean | null>; default?: string | number | boolean | null };

/** Looks up a related value in the source system (cached per run). */
export interface Resolver {
  /** Source entity (table) to look in. */
  entity: string;
  /** Field in `entity` compared to the mapped value. */
  matchField: string;
  /** Field in `entity` whose value replaces the mapped value. */
  returnField: string;
  /** What to do when nothing matches: `null` (default) yields null; `transitive` parks the message; `error` fails detection. */
  onMissing?: 'null' | 'transitive' | 'error';
}

export interface FieldMapping {
  /** Target field. */
  target: string;
  /** Source field (omit when `constant` is given). */
  source?: string;
  constant?: string | number | boolean | null;
  operations?: SourceOperation[];
  resolver?: Resolver;
}

export interface ResponseFieldMapping {
  /** Field the target returned (e.g. a generated number). */
  from: string;
  /** Field of the response job's target (usually the original source record). */
  to: string;
}

export interface Mapping {
  name: string;
  source: {
    entity: string;
    /** Source key fields; their values (joined with `|`) make the message's `sourceKey`. */
    key: string[];
  };
  target: {
    entity: string;
    /** Target key / alternate key fields, taken from the mapped fields of the same name. */
    key: string[];
    /** Target field holding the record's change tracker (skip-outdated). Default: the connection's `settings.versionField`. */
    versionField?: string;
  };
  fields: FieldMapping[];
  /** Target fields written back to the source through the job's `responseJob`. */
  responseMapping?: ResponseFieldMapping[];
}
