//! SCIP indexes of indexed revisions: `refscope export --scip`.
//!
//! [SCIP](https://github.com/sourcegraph/scip) is the code-intelligence
//! format Sourcegraph reads. This crate turns one revision of a refscope
//! store into a `scip::types::Index`: a document per Java file, a
//! definition occurrence per declaration, a reference occurrence per
//! resolved reference site (exact or external; ambiguous and unresolved
//! sites are left out), symbol information with signatures, javadoc and
//! override relationships, and the library symbols referenced. Symbols
//! are spelled as scip-java spells them (`semanticdb maven ...`), with the
//! Maven coordinates of the nearest `pom.xml` (see [`symbol`]).
//!
//! It owns the SCIP model and its protobuf encoding, which nothing else in
//! refscope needs (the `scip` crate pins its protobuf runtime exactly, so
//! keeping both here keeps them out of the query layer and the server). It
//! reads the revision through the engine's [`refscope_engine::Snapshot`]
//! and knows nothing of the query language, MCP or the command line.
//!
//! ```no_run
//! use refscope_engine::{JdkTypes, Snapshot, Store};
//! use refscope_scip_export::{Libraries, NoFiles, ScipConfig, export_scip};
//!
//! let store = Store::open_existing("/repo/.git/refscope".as_ref())?;
//! let snapshot = Snapshot::new(&store, Snapshot::pick_revision(&store, None, None)?)?;
//! let libraries = Libraries::new(&JdkTypes::discover()?, &[])?;
//! let config = ScipConfig {
//!     project_root: "/repo".as_ref(),
//!     tool_version: "0.1.0",
//!     libraries: &libraries,
//!     files: &NoFiles,
//! };
//! let mut out = std::fs::File::create("index.scip")?;
//! let summary = export_scip(&snapshot, &config, &mut out)?;
//! println!("{} documents", summary.n_documents);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod build;
mod builder;
mod declarations;
mod error;
mod files;
mod libraries;
mod maven;
mod projects;
mod references;
mod signature;
pub mod snapshot;
pub mod symbol;
mod text;

pub use build::{ScipConfig, decode_index, export_scip};
pub use builder::ScipSummary;
pub use error::ScipError;
pub use files::{NoFiles, RevisionFiles, SourceFiles};
pub use libraries::{DEFAULT_JDK_VERSION, Libraries};
pub use maven::{MavenCoordinates, pom_coordinates};
/// The SCIP bindings and their protobuf runtime, for readers of the index.
pub use {protobuf, scip};
