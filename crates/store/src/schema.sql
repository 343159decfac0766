-- refscope store (see FORMAT_VERSION in mod.rs).
--
-- A revision becomes visible when its row in `revisions` commits, in the
-- same transaction as everything it wrote, so readers never see half of
-- one.

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Per-file facts in the blob pack, by git blob id.
CREATE TABLE IF NOT EXISTS blobs (
    blob_id              BLOB PRIMARY KEY,
    pack_offset          INTEGER NOT NULL,
    pack_len             INTEGER NOT NULL,
    -- Length of the record's declarations part (see store/pack.rs).
    declarations_len     INTEGER NOT NULL,
    n_elements           INTEGER NOT NULL,
    n_ref_sites          INTEGER NOT NULL,
    n_syntax_errors      INTEGER NOT NULL,
    n_invalid_utf8_bytes INTEGER NOT NULL,
    -- FileFacts::signature_digest: what other files' resolution sees.
    signature_digest     BLOB NOT NULL
) WITHOUT ROWID;

-- A blob's elements with their names qualified in one revision's context.
-- Revisions whose context qualifies a blob the same way share the unit.
CREATE TABLE IF NOT EXISTS units (
    id      INTEGER PRIMARY KEY,
    blob_id BLOB NOT NULL,
    digest  BLOB NOT NULL UNIQUE,
    -- The blob's resolved references and override links (rkyv archive of
    -- StoredResolution).
    refs    BLOB NOT NULL,
    -- The names its qualification and resolution looked up, found or not
    -- (sorted, front-coded: see store/names.rs): while each leads where
    -- it led, the unit stays right for its path.
    deps    BLOB NOT NULL,
    -- What the file contributes to the symbol table: its types and its
    -- classes' signatures without positions (see store/symbols.rs).
    symbols BLOB NOT NULL
);

CREATE TABLE IF NOT EXISTS revisions (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    branch      TEXT,
    -- The directory the files were read from (repository work tree or
    -- plain directory), as an absolute path.
    root        TEXT,
    indexed_at  INTEGER NOT NULL,
    n_files     INTEGER NOT NULL,
    n_elements  INTEGER NOT NULL,
    n_ref_sites INTEGER NOT NULL,
    n_skipped   INTEGER NOT NULL,
    n_syntax_errors INTEGER NOT NULL,
    n_invalid_utf8_files INTEGER NOT NULL DEFAULT 0,
    seconds     REAL NOT NULL,
    -- Digest of the libraries (JDK, class path) it was resolved with: a
    -- revision is layered only over one with the same libraries.
    library_digest BLOB NOT NULL,
    -- The revision it was written as a layer over (NULL: from scratch),
    -- by name: the parent may have been removed since.
    parent      TEXT,
    -- The root of its manifest tree (see store/tree.rs).
    tree        INTEGER NOT NULL,
    -- Its symbol table and dependency index: the newest layer of each in
    -- the pack (see store/layers.rs).
    symbols_offset INTEGER NOT NULL,
    symbols_len    INTEGER NOT NULL,
    lookups_offset INTEGER NOT NULL,
    lookups_len    INTEGER NOT NULL
);

-- The path → (blob, unit) manifests of the revisions, as trees of
-- directories stored once by content (see store/tree.rs).
CREATE TABLE IF NOT EXISTS trees (
    id      INTEGER PRIMARY KEY,
    digest  BLOB NOT NULL UNIQUE,
    entries BLOB NOT NULL
);

-- Files of a revision that were not indexed, with why.
CREATE TABLE IF NOT EXISTS skipped_files (
    revision_id INTEGER NOT NULL,
    path        TEXT NOT NULL,
    reason      TEXT NOT NULL,
    PRIMARY KEY (revision_id, path)
) WITHOUT ROWID;

-- Elements of a unit: `idx` is the element's index in the blob's facts.
CREATE TABLE IF NOT EXISTS elements (
    unit_id    INTEGER NOT NULL,
    idx        INTEGER NOT NULL,
    element_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    name       TEXT NOT NULL,
    owner      TEXT,
    params     TEXT NOT NULL,
    type       TEXT NOT NULL,
    parent_idx INTEGER,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    name_line  INTEGER NOT NULL,
    name_col   INTEGER NOT NULL,
    PRIMARY KEY (unit_id, idx)
) WITHOUT ROWID;

-- (store/mod.rs: ELEMENTS_BY_ID makes it again after a first index.)
CREATE INDEX IF NOT EXISTS elements_by_id ON elements (element_id);

-- Element ids that references and override links point at (methods,
-- fields, constructors, types), interned. Looked up by name only, so keyed
-- by it: one B-tree. Ids are given in order from meta's next_target_id.
CREATE TABLE IF NOT EXISTS targets (
    name TEXT PRIMARY KEY,
    id   INTEGER NOT NULL
) WITHOUT ROWID;

-- Every path a unit has had in a manifest (store/tree.rs writes them with
-- the manifest's files): a question that names a few units finds their
-- files in a revision among these paths, without reading the revision's
-- whole manifest. A path is checked against the manifest before use.
CREATE TABLE IF NOT EXISTS unit_paths (
    unit_id INTEGER NOT NULL,
    path    TEXT NOT NULL,
    PRIMARY KEY (unit_id, path)
) WITHOUT ROWID;

-- The global reference index: which units reference a target. A
-- revision's callers of X are the sites targeting X in the units of its
-- manifest. With each, how those sites read (store/links.rs SiteCounts):
-- how many at distinct positions, how many call on `super`, how many on
-- `this` (written or implicit).
CREATE TABLE IF NOT EXISTS ref_postings (
    target_id INTEGER NOT NULL,
    unit_id   INTEGER NOT NULL,
    sites     INTEGER NOT NULL,
    on_super  INTEGER NOT NULL,
    on_this   INTEGER NOT NULL,
    PRIMARY KEY (target_id, unit_id)
) WITHOUT ROWID;

-- Override links: element `idx` of a unit overrides or implements the
-- method `target_id`, or (for a type) extends or implements the type.
-- Read backwards for implementations and subtypes.
CREATE TABLE IF NOT EXISTS overrides (
    target_id INTEGER NOT NULL,
    unit_id   INTEGER NOT NULL,
    idx       INTEGER NOT NULL,
    PRIMARY KEY (target_id, unit_id, idx)
) WITHOUT ROWID;
