//! The documentation names what exists: every repository path written in
//! backticks or as a link target in `README.md`, `ARCHITECTURE.md`,
//! `CHANGELOG.md`, `benches/README.md`, `corpora/README.md` and `docs/`
//! exists in the workspace, so a code map cannot drift from the code.

use std::path::Path;

use refscope_test_support::paths::workspace_root;

/// Where repository paths start.
const ROOTS: [&str; 8] = [
    "crates/", "cli/", "benches/", "corpora/", "oracle/", "docs/", ".ci/", "fuzz/",
];

/// The documents checked: the root's and `docs/`.
fn documents(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<std::path::PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CHANGELOG.md",
        "benches/README.md",
        "corpora/README.md",
    ]
    .iter()
    .map(|p| root.join(p))
    .filter(|p| p.is_file())
    .collect();
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        out.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "md")),
        );
    }
    out.sort();
    out
}

/// The repository paths a document names: in backticks, or as the target
/// of a Markdown link, relative to the document for links.
fn named_paths(document: &Path, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for code in text.split('`').skip(1).step_by(2) {
        let candidate = code.split_whitespace().next().unwrap_or("");
        if ROOTS.iter().any(|r| candidate.starts_with(r)) {
            out.push(candidate.trim_end_matches([',', '.', ':', ')']).to_string());
        }
    }
    let dir = document.parent().unwrap();
    for (i, _) in text.match_indices("](") {
        let target: String = text[i + 2..].chars().take_while(|&c| c != ')').collect();
        let target = target.split('#').next().unwrap_or("").to_string();
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let full = dir.join(&target);
        let root = workspace_root();
        let relative = full
            .strip_prefix(&root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or(target);
        out.push(relative);
    }
    out
}

#[test]
fn every_path_the_documentation_names_exists() {
    let root = workspace_root();
    let mut missing = Vec::new();
    let mut n_checked = 0;
    for document in documents(&root) {
        let text = std::fs::read_to_string(&document).unwrap();
        for path in named_paths(&document, &text) {
            // Globs and placeholders name no one file.
            if path.contains(['*', '<', '{']) || path.contains("NAME") || path.contains("...") {
                continue;
            }
            n_checked += 1;
            let normalized =
                Path::new(&path)
                    .components()
                    .fold(std::path::PathBuf::new(), |mut acc, c| {
                        match c {
                            std::path::Component::ParentDir => {
                                acc.pop();
                            }
                            std::path::Component::CurDir => {}
                            other => acc.push(other),
                        }
                        acc
                    });
            if !root.join(&normalized).exists() {
                missing.push(format!(
                    "{}: {path}",
                    document.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        n_checked >= 20,
        "only {n_checked} paths found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "paths named in the documentation that do not exist:\n{}",
        missing.join("\n")
    );
}
