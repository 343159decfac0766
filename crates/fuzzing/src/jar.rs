//! `jar`: any bytes as a jar on the class path: its central directory read
//! when the class path is made, then every class it lists parsed.

use std::path::PathBuf;
use std::sync::OnceLock;

use refscope_symbols::{ClassPath, JdkTypes};

/// How many of a jar's classes are parsed: enough to reach every entry of
/// a small jar, few enough that one input stays fast.
const MAX_CLASSES: usize = 64;

/// Writes `data` as a jar file and reads it as the class path does.
pub fn jar(data: &[u8]) {
    read(data);
}

/// [`jar`]: how many classes it lists and how many of them parse.
fn read(data: &[u8]) -> (usize, usize) {
    static JAR: OnceLock<PathBuf> = OnceLock::new();
    let jar = JAR.get_or_init(|| {
        tempfile::tempdir()
            .expect("a temporary directory")
            .keep()
            .join("input.jar")
    });
    std::fs::write(jar, data).expect("the scratch jar is written");
    let Ok(class_path) = ClassPath::new(&JdkTypes::missing(), std::slice::from_ref(jar)) else {
        return (0, 0);
    };
    let names: Vec<String> = class_path
        .class_names()
        .take(MAX_CLASSES)
        .map(str::to_owned)
        .collect();
    let mut parsed = 0;
    for name in &names {
        assert!(
            class_path.contains(name),
            "{name} is listed but not contained"
        );
        parsed += usize::from(class_path.load(name).is_some());
    }
    (names.len(), parsed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_corpus_reaches_the_class_reader() {
        // Jars of the fixtures' class files are among the seeds: their
        // classes are listed and parsed.
        let (mut listed, mut parsed) = (0, 0);
        for (_, input) in refscope_test_support::paths::fuzz_corpus("jar") {
            let (classes, read) = super::read(&input);
            listed += classes;
            parsed += read;
        }
        assert!(
            parsed > 0 && listed >= parsed,
            "{parsed} of {listed} classes parsed"
        );
    }
}
