namespace hwc;

/*
 * The convergence harness's OData source: the same categories, items and tombstones as its SQL
 * sources, element names as the SQL columns (so one mapping serves every source). Stamps are
 * plain Timestamps: the harness writes them itself, at whole seconds of the server's clock.
 */
entity categories {
  key id      : String(20);
  name        : String(100) not null;
  modified_at : Timestamp not null;
}

entity items {
  key id      : String(20);
  category_id : String(20) not null;
  name        : String(100) not null;
  qty         : Integer not null;
  note        : String(200);
  modified_at : Timestamp not null;
}

entity deleted_items {
  key id     : String(20);
  deleted_at : Timestamp not null;
}

/* Server-driven pages of 25 (less than the jobs' page size): runs follow skip tokens. */
service ConvergenceService @(path: '/odata/v4/convergence') {
  @readonly @cds.query.limit: { default: 25, max: 25 }
  entity categories as projection on hwc.categories;

  @readonly @cds.query.limit: { default: 25, max: 25 }
  entity items as projection on hwc.items;

  @readonly @cds.query.limit: { default: 25, max: 25 }
  entity deleted_items as projection on hwc.deleted_items;
}
