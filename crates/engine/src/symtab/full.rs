//! The symbol table of a revision indexed from scratch: every file's
//! symbols in memory, numbered by the file's position in path order.

use std::sync::Arc;

use rayon::prelude::*;

use refscope_resolve::class::ClassCopies;
use refscope_symbols::classfile::ClassPath;
use rustc_hash::FxHashMap;

use super::{CopiesCache, FileSymbols, RevisionClasses};

/// Every file's symbols, and the files declaring each class key.
pub(crate) struct FullTable {
    paths: Vec<Arc<str>>,
    symbols: Vec<FileSymbols>,
    /// Class key → the files declaring it, in path order.
    declarers: FxHashMap<Arc<str>, Vec<u32>>,
    class_path: Arc<ClassPath>,
    /// [`RevisionClasses::class_copies`]' answers.
    copies: CopiesCache,
}

impl FullTable {
    /// The table of files `paths` (in path order; a file's number is its
    /// position) with their `symbols`.
    pub(crate) fn new(
        paths: Vec<Arc<str>>,
        symbols: Vec<FileSymbols>,
        class_path: Arc<ClassPath>,
    ) -> Self {
        let mut declarers: FxHashMap<Arc<str>, Vec<u32>> = FxHashMap::default();
        for (file, symbols) in symbols.iter().enumerate() {
            for entry in &symbols.placeless {
                let files = declarers.entry(entry.sig.name.clone()).or_default();
                if files.last() != Some(&(file as u32)) {
                    files.push(file as u32);
                }
            }
        }
        Self {
            paths,
            symbols,
            declarers,
            class_path,
            copies: CopiesCache::default(),
        }
    }

    /// The symbols of file `file`.
    pub(crate) fn symbols(&self, file: u32) -> &FileSymbols {
        &self.symbols[file as usize]
    }

    /// Frees the table, the files' symbols in parallel: they are millions
    /// of small allocations, a noticeable part of a second on one thread.
    pub(crate) fn drop_in_parallel(self) {
        let Self {
            paths,
            symbols,
            declarers,
            class_path,
            copies,
        } = self;
        rayon::join(
            || symbols.into_par_iter().with_min_len(64).for_each(drop),
            || drop((paths, declarers, class_path, copies)),
        );
    }
}

impl RevisionClasses for FullTable {
    fn class_copies(&self, key: &str) -> ClassCopies {
        self.copies.get_or(self, key, || {
            self.declarers
                .get(key)
                .into_iter()
                .flatten()
                .flat_map(|&file| {
                    self.symbols[file as usize]
                        .placeless
                        .iter()
                        .filter(|entry| *entry.sig.name == *key)
                        .cloned()
                })
                .collect()
        })
    }

    fn path(&self, file: u32) -> Option<Arc<str>> {
        self.paths.get(file as usize).cloned()
    }

    fn package(&self, file: u32) -> Option<Option<String>> {
        self.symbols.get(file as usize).map(|s| s.package.clone())
    }

    fn class_path(&self) -> &Arc<ClassPath> {
        &self.class_path
    }
}
