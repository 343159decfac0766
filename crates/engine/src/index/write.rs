//! What both ways of indexing end with: the reference index's links of
//! the units stored, and the element index.

use refscope_store::{ElementIndex, IndexTransaction, Links};

use super::report::Progress;
use crate::error::Error;

/// Writes the links gathered while storing units (sorted on a thread of
/// their own while SQLite builds the element index), then the element
/// index.
pub(super) fn finish_links(
    tx: &IndexTransaction<'_>,
    links: Links,
    element_index: ElementIndex,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), Error> {
    progress(Progress::Phase {
        name: "finish",
        total: 0,
    });
    let sorted = std::thread::scope(|scope| {
        let sorting = scope.spawn(|| links.sorted());
        let indexed = element_index.finish(tx);
        let sorted = sorting
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        indexed.map(|()| sorted)
    })?;
    sorted.write(tx)?;
    Ok(())
}
