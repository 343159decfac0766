//! The refscope query layer: rendering the engine's answers for people and
//! programs, and exporting them in the javac oracle's record format. The
//! query language itself builds on this.
//!
//! ```no_run
//! use refscope_engine::{Snapshot, Store};
//! use refscope_query::render::{ElementJson, elements_text};
//!
//! let store = Store::open_existing("/repo/.git/refscope".as_ref())?;
//! let row = Snapshot::pick_revision(&store, None, None)?;
//! let snapshot = Snapshot::new(&store, row)?;
//! let views = snapshot.elements_at("src/A.java", 10, 10)?;
//! let json: Vec<ElementJson> = views.iter().map(ElementJson::from_view).collect();
//! print!("{}", elements_text(&json));
//! # Ok::<(), refscope_engine::Error>(())
//! ```

#![forbid(unsafe_code)]

pub mod export;
pub mod graph;
pub mod lang;
pub mod render;
