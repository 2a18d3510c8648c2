import type { ColumnKind, DescribedColumn, EntityDescription } from '../base/entity-describer';

/**
 * The part of an OData V4 `$metadata` document (CSDL XML) that `highwater check` and the typed
 * values of reads and writes use: entity sets, their entity types' properties (structural with
 * their `Edm` type, navigation with kind `other`; `BaseType` inheritance) and keys. A small reader of
 * these few elements rather than an XML library: CSDL writes them as plain elements with
 * attributes, and nothing else of the document is needed.
 */

interface EntityType {
  properties: DescribedColumn[];
  key: string[];
  baseType?: string;
}

/** The entity sets of a service: name → description. */
export type CsdlModel = ReadonlyMap<string, EntityDescription>;

const ATTRIBUTE = /([A-Za-z_:][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(ATTRIBUTE)) out[m[1]] = (m[2] ?? m[3]).replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return out;
}

/** `Edm.*` (or a type definition: `other`) → the checks' kind. */
function edmKind(type: string): ColumnKind {
  switch (type) {
    case 'Edm.String':
    case 'Edm.Guid':
      return 'text';
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
    case 'Edm.Int64':
      return 'integer';
    case 'Edm.Decimal':
      return 'decimal';
    case 'Edm.Single':
    case 'Edm.Double':
      return 'float';
    case 'Edm.DateTimeOffset':
      return 'datetime';
    case 'Edm.Date':
      return 'date';
    case 'Edm.Boolean':
      return 'boolean';
    case 'Edm.Binary':
      return 'binary';
    default:
      return 'other';
  }
}

/** The last segment of a qualified name (`NS.Type` → `Type`): namespaces and aliases differ per service. */
function simpleName(qualified: string): string {
  return qualified.slice(qualified.lastIndexOf('.') + 1);
}

/** Reads the entity sets of a `$metadata` document. */
export function readCsdl(xml: string): CsdlModel {
  const types = new Map<string, EntityType>();
  for (const m of xml.matchAll(/<(?:edm:)?EntityType\b([^>]*?)(\/>|>([\s\S]*?)<\/(?:edm:)?EntityType>)/g)) {
    const attrs = attributes(m[1]);
    const body = m[3] ?? '';
    const keyBlock = /<(?:edm:)?Key\b[^>]*>([\s\S]*?)<\/(?:edm:)?Key>/.exec(body)?.[1] ?? '';
    const key = [...keyBlock.matchAll(/<(?:edm:)?PropertyRef\b([^>]*)\/?>/g)].map((r) => attributes(r[1]).Name);
    const properties = [...body.matchAll(/<(?:edm:)?Property\b([^>]*?)\/?>/g)].map((p) => {
      const a = attributes(p[1]);
      return { name: a.Name, type: a.Type ?? '', kind: edmKind(a.Type ?? '') };
    });
    // Navigation properties are written too (Dataverse lookups: `parentcustomerid_account`, binds).
    for (const p of body.matchAll(/<(?:edm:)?NavigationProperty\b([^>]*?)\/?>/g)) {
      const a = attributes(p[1]);
      if (a.Name) properties.push({ name: a.Name, type: a.Type ?? '', kind: 'other' });
    }
    types.set(attrs.Name, { properties, key, ...(attrs.BaseType ? { baseType: simpleName(attrs.BaseType) } : {}) });
  }
  const resolved = (name: string, seen = new Set<string>()): EntityType | undefined => {
    const type = types.get(name);
    if (!type || !type.baseType || seen.has(name)) return type;
    seen.add(name);
    const base = resolved(type.baseType, seen);
    return base ? { properties: [...base.properties, ...type.properties], key: type.key.length > 0 ? type.key : base.key } : type;
  };
  const sets = new Map<string, EntityDescription>();
  for (const m of xml.matchAll(/<(?:edm:)?EntitySet\b([^>]*?)\/?>/g)) {
    const a = attributes(m[1]);
    const type = resolved(simpleName(a.EntityType ?? ''));
    if (!a.Name || !type) continue;
    sets.set(a.Name, { columns: new Map(type.properties.map((p) => [p.name, p])), uniqueKeys: type.key.length > 0 ? [type.key] : [] });
  }
  return sets;
}
