//! Builds `src/extract/children.c`, which reads tree-sitter's internal
//! headers: they sit next to the public ones the tree-sitter crate exports
//! (`links = "tree-sitter"` gives its include directory), and the workspace
//! pins tree-sitter to the exact version the file was written against.

use std::path::PathBuf;

fn main() {
    let source = "src/extract/children.c";
    println!("cargo:rerun-if-changed={source}");
    let include = PathBuf::from(
        std::env::var_os("DEP_TREE_SITTER_INCLUDE")
            .expect("the tree-sitter crate exports its include directory"),
    );
    let internal = include
        .parent()
        .expect("tree-sitter's include directory has a parent")
        .join("src");
    cc::Build::new()
        .file(source)
        .include(&include)
        .include(&internal)
        .flag_if_supported("-std=c11")
        .flag_if_supported("-Wno-unused-parameter")
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .compile("refscope_children");
}
