//! `refscope lsp` with a real editor as its client: Neovim, headless
//! (Debian's `neovim`, which `.ci/run` installs), runs
//! `lsp_neovim.lua`: it opens a file of the zoo fixture, asks definition
//! and references, edits a method body without saving and asks again, and
//! writes what it got to a file this test reads.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::workspace_root;

/// How long Neovim may take before it is killed.
const TIMEOUT: Duration = Duration::from_secs(120);

fn copy_java_files(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_java_files(&path, &target);
        } else if path.extension().is_some_and(|e| e == "java") {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn neovim_finds_definitions_and_references_through_refscope_lsp() {
    let tree = tempfile::tempdir().unwrap();
    copy_java_files(&workspace_root().join("corpora/fixtures/zoo"), tree.path());
    let root = tree.path().canonicalize().unwrap();
    let store = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let out_file = out.path().join("answers.txt");
    let script = workspace_root().join("cli/tests/full/lsp_neovim.lua");
    let mut nvim = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("REFSCOPE", env!("CARGO_BIN_EXE_refscope"))
        .env("LSP_ROOT", &root)
        .env("LSP_STORE", store.path())
        .env("LSP_OUT", &out_file)
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run nvim ({e}): install Debian's neovim package (apt-get install neovim, as .ci/run does)")
        });
    let started = Instant::now();
    while nvim.try_wait().unwrap().is_none() {
        if started.elapsed() > TIMEOUT {
            let _ = nvim.kill();
            panic!("nvim did not finish in {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let answers = std::fs::read_to_string(&out_file).unwrap_or_else(|e| {
        let output = nvim.wait_with_output().unwrap();
        panic!(
            "nvim wrote no answers ({e}):\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(
        answers,
        "encoding utf-16\n\
         definition src/main/java/com/zoo/Animal.java:11:10\n\
         references src/main/java/com/zoo/Keeper.java:23:16\n\
         edited references src/main/java/com/zoo/Keeper.java:23:16 src/main/java/com/zoo/Keeper.java:24:16\n\
         symbols Keeper: animals, fed, admit(Animal), admitAll(List<Animal>), feed(Animal), feed(Animal, Food), feedAll(), noise(), fed(), Shift\n"
    );
}
