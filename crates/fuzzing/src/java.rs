//! `java_resolve`: any bytes as up to four Java files (split at NUL
//! bytes) of one revision: extracted, their signatures gathered into one
//! symbol table with the stub JDK as the library, each file resolved and
//! its elements qualified, as the indexer does from scratch.

use std::sync::{Arc, OnceLock};

use refscope_resolve::records::element_records;
use refscope_resolve::{SymbolTable, file_signatures, resolve_file_tracked};
use refscope_symbols::lookups::LookupLog;
use refscope_symbols::names::type_skeleton;
use refscope_symbols::{ClassPath, JdkTypes, Qualifier, TypeUniverse};
use refscope_syntax::facts::FileFacts;

/// How many files one input may hold.
const MAX_FILES: usize = 4;

/// The stub JDK and its class path, read once.
fn library() -> &'static (Arc<JdkTypes>, Arc<ClassPath>) {
    static LIBRARY: OnceLock<(Arc<JdkTypes>, Arc<ClassPath>)> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let jdk = JdkTypes::read(refscope_test_support::jdk_stub_home()).expect("the stub JDK");
        let class_path = ClassPath::new(&jdk, &[]).expect("the stub JDK's class path");
        (Arc::new(jdk), Arc::new(class_path))
    })
}

/// Resolves the files of `data`.
pub fn java_resolve(data: &[u8]) {
    let (jdk, class_path) = library();
    let facts: Vec<FileFacts> = data
        .split(|&byte| byte == 0)
        .take(MAX_FILES)
        .map(refscope_syntax::extract)
        .collect();
    for file in &facts {
        assert_eq!(
            file.check(),
            Ok(()),
            "extraction broke the facts' invariants"
        );
    }
    let mut universe = TypeUniverse::with_libraries(jdk, []);
    let skeletons: Vec<FileFacts> = facts.iter().map(type_skeleton).collect();
    universe.add_sources(skeletons.iter());
    let mut classes = Vec::new();
    let mut files = Vec::new();
    for (index, file) in facts.iter().enumerate() {
        let qualifier = Qualifier::new(&universe, file);
        classes.extend(file_signatures(&qualifier, file, index as u32));
        files.push((format!("F{index}.java"), file.package.clone()));
    }
    let table = SymbolTable::new(classes, Some(class_path.clone()), files);
    for (index, file) in facts.iter().enumerate() {
        let _ = resolve_file_tracked(&table, &universe, file, index as u32, &LookupLog::default());
        let _ = element_records(file, &Qualifier::new(&universe, file));
    }
}
