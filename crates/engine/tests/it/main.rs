//! The engine end to end, in process: real git repositories, real store
//! files in temporary directories, the stub JDK.

mod callers_window;
mod common;
mod damaged_layers;
mod damaged_rows;
mod diff;
mod revision_cache;
mod store;
mod unit_files;
mod worktree_units;
