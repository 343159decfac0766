//! Shared helpers of the refscope benchmarks: finding Java files the way
//! `refscope index` finds them in a plain directory, and generating a
//! realistic Java class when no fixture is at hand.
//!
//! The `extract` criterion bench and the `raw-parse` baseline binary both
//! use these, so they see the same inputs as the indexer.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Files larger than this are skipped, like `refscope index` does by
/// default (`SourceLimits::default().max_file_bytes`).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 << 20;

/// The `*.java` files under `root`, sorted by path.
///
/// Mirrors the indexer's directory walk: `.git` and `.refscope` are not
/// entered, symbolic links are followed (each directory is entered once,
/// so a link loop ends), unreadable directories and dangling links are
/// ignored, and files larger than `max_file_bytes` are left out.
pub fn java_files(root: &Path, max_file_bytes: u64) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut visited: HashSet<PathBuf> = HashSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(canonical) = std::fs::canonicalize(&dir) else {
            continue;
        };
        if !visited.insert(canonical) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name == ".git" || name == ".refscope" {
                continue;
            }
            let path = entry.path();
            let Ok(metadata) = std::fs::metadata(&path) else {
                continue;
            };
            if metadata.is_dir() {
                pending.push(path);
            } else if metadata.is_file()
                && name.to_string_lossy().ends_with(".java")
                && metadata.len() <= max_file_bytes
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A small deterministic pseudo-random generator (64-bit LCG), enough to
/// vary identifiers and statement shapes without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const NOUNS: &[&str] = &[
    "order",
    "customer",
    "invoice",
    "account",
    "payment",
    "item",
    "basket",
    "ledger",
    "entry",
    "report",
    "session",
    "token",
    "region",
    "price",
    "discount",
    "shipment",
    "warehouse",
];

const FIELD_TYPES: &[&str] = &[
    "String",
    "int",
    "long",
    "boolean",
    "BigDecimal",
    "List<String>",
    "Map<String, Integer>",
    "Optional<Instant>",
    "Set<Long>",
];

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A realistic Java compilation unit of about `target_lines` lines (never
/// fewer than ~120): a package, imports, a documented generic class with
/// annotations, fields, constructors, accessors, methods using loops,
/// lambdas, streams, `switch`, `try`/`catch`, anonymous and nested
/// classes, an enum and a record. The same `seed` gives the same text.
pub fn generated_java_class(seed: u64, target_lines: usize) -> String {
    let mut rng = Lcg(seed ^ 0x5eed_cafe_f00d_d00d);
    let class = format!("{}Service{}", capitalised(rng.pick(NOUNS)), seed % 1000);
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "/*\n * Generated benchmark input {seed}.\n */");
    let _ = writeln!(w, "package com.example.bench.gen{};\n", seed % 17);
    for import in [
        "java.math.BigDecimal",
        "java.time.Instant",
        "java.util.ArrayList",
        "java.util.HashMap",
        "java.util.List",
        "java.util.Map",
        "java.util.Objects",
        "java.util.Optional",
        "java.util.Set",
        "java.util.concurrent.ConcurrentHashMap",
        "java.util.function.Function",
        "java.util.stream.Collectors",
    ] {
        let _ = writeln!(w, "import {import};");
    }
    let _ = writeln!(w, "import static java.util.Objects.requireNonNull;\n");
    let _ = writeln!(
        w,
        "/**\n * Keeps track of {noun}s and derives summaries from them.\n *\n * @param <K> the key type\n * @param <V> the value type\n */",
        noun = rng.pick(NOUNS)
    );
    let _ = writeln!(w, "@SuppressWarnings(\"unchecked\")");
    let _ = writeln!(
        w,
        "public class {class}<K extends Comparable<K>, V> extends AbstractService implements AutoCloseable, Comparable<{class}<K, V>> {{"
    );
    let _ = writeln!(
        w,
        "    private static final long serialVersionUID = {}L;",
        rng.next()
    );
    let _ = writeln!(
        w,
        "    private static final int DEFAULT_CAPACITY = {};",
        16 + rng.below(240)
    );
    let _ = writeln!(
        w,
        "    private final Map<K, V> entries = new ConcurrentHashMap<>();"
    );
    let _ = writeln!(
        w,
        "    private final List<Listener<? super V>> listeners = new ArrayList<>();"
    );
    let mut fields = Vec::new();
    for i in 0..6 {
        let name = format!("{}{i}", rng.pick(NOUNS));
        let ty = rng.pick(FIELD_TYPES);
        let _ = writeln!(w, "    private {ty} {name};");
        fields.push((ty, name));
    }
    let _ = writeln!(w, "    private volatile boolean closed;\n");

    let _ = writeln!(
        w,
        "    public {class}() {{\n        this(DEFAULT_CAPACITY);\n    }}\n"
    );
    let _ = writeln!(
        w,
        "    public {class}(int capacity) {{\n        super(\"{class}\", capacity);\n        if (capacity <= 0) {{\n            throw new IllegalArgumentException(\"capacity must be positive: \" + capacity);\n        }}\n    }}\n"
    );
    for (ty, name) in &fields {
        let cap = capitalised(name);
        let _ = writeln!(
            w,
            "    /** Returns the {name}. */\n    public {ty} get{cap}() {{\n        return {name};\n    }}\n"
        );
        let _ = writeln!(
            w,
            "    public {class}<K, V> with{cap}({ty} {name}) {{\n        this.{name} = {name};\n        return this;\n    }}\n"
        );
    }

    let body_templates: &[fn(&mut Lcg, &mut String, usize)] = &[
        |rng, w, i| {
            let noun = rng.pick(NOUNS);
            let _ = writeln!(
                w,
                "    /**\n     * Sums the {noun} amounts above a threshold.\n     */\n    public BigDecimal total{i}(List<? extends V> values, BigDecimal threshold) {{\n        BigDecimal sum = BigDecimal.ZERO;\n        for (V value : values) {{\n            BigDecimal amount = amountOf(value);\n            if (amount.compareTo(threshold) > 0) {{\n                sum = sum.add(amount);\n            }} else if (amount.signum() < 0) {{\n                log(\"negative {noun}: \" + value);\n            }}\n        }}\n        return sum;\n    }}\n"
            );
        },
        |rng, w, i| {
            let noun = rng.pick(NOUNS);
            let _ = writeln!(
                w,
                "    public Map<String, List<K>> group{i}(Function<? super V, String> classifier) {{\n        return entries.entrySet().stream()\n                .filter(e -> e.getValue() != null)\n                .sorted(Map.Entry.comparingByKey())\n                .collect(Collectors.groupingBy(\n                        e -> classifier.apply(e.getValue()),\n                        HashMap::new,\n                        Collectors.mapping(Map.Entry::getKey, Collectors.toList())));\n    }}\n\n    private static String describe{i}(Object {noun}) {{\n        return {noun} == null ? \"none\" : {noun}.getClass().getSimpleName() + '#' + {noun}.hashCode();\n    }}\n"
            );
        },
        |rng, w, i| {
            let a = rng.below(100);
            let b = a + 1 + rng.below(100);
            let _ = writeln!(
                w,
                "    public int classify{i}(int code, String label) {{\n        switch (code) {{\n            case {a}:\n                return label.length();\n            case {b}:\n                return -label.length();\n            default:\n                break;\n        }}\n        int score = switch (label) {{\n            case \"low\" -> 1;\n            case \"high\" -> {{\n                int bonus = code % 7;\n                yield 10 + bonus;\n            }}\n            default -> 0;\n        }};\n        return score * (code > {a} ? 2 : 1);\n    }}\n"
            );
        },
        |rng, w, i| {
            let noun = rng.pick(NOUNS);
            let _ = writeln!(
                w,
                "    public Optional<V> load{i}(K key) throws java.io.IOException {{\n        requireNonNull(key, \"key\");\n        try (var reader = open(key.toString())) {{\n            String line;\n            int lines = 0;\n            while ((line = reader.readLine()) != null && lines++ < DEFAULT_CAPACITY) {{\n                if (line.startsWith(\"#\")) {{\n                    continue;\n                }}\n                V parsed = (V) parse(line);\n                entries.put(key, parsed);\n            }}\n        }} catch (IllegalStateException | ClassCastException e) {{\n            log(\"cannot load {noun} \" + key + \": \" + e.getMessage());\n            return Optional.empty();\n        }} finally {{\n            closed = false;\n        }}\n        return Optional.ofNullable(entries.get(key));\n    }}\n"
            );
        },
        |rng, w, i| {
            let noun = rng.pick(NOUNS);
            let _ = writeln!(
                w,
                "    public void watch{i}(final String {noun}Name) {{\n        listeners.add(new Listener<V>() {{\n            private int seen;\n\n            @Override\n            public void changed(V value) {{\n                seen++;\n                if (seen % 100 == 0) {{\n                    log({noun}Name + \" changed \" + seen + \" times, last \" + value);\n                }}\n            }}\n        }});\n        Runnable notifier = () -> listeners.forEach(l -> l.changed(null));\n        notifier.run();\n    }}\n"
            );
        },
        |_rng, w, i| {
            let _ = writeln!(
                w,
                "    public <T extends Number & Comparable<T>> T max{i}(T[] values, T fallback) {{\n        if (values == null || values.length == 0) {{\n            return fallback;\n        }}\n        T best = values[0];\n        for (int j = 1; j < values.length; j++) {{\n            if (values[j].compareTo(best) > 0) {{\n                best = values[j];\n            }}\n        }}\n        int[][] grid = new int[values.length][2];\n        grid[0][1] = best.intValue();\n        assert grid.length > 0 : \"empty grid\";\n        return best;\n    }}\n"
            );
        },
    ];
    let mut i = 0;
    while out.lines().count() + 40 < target_lines {
        let template = body_templates[rng.below(body_templates.len())];
        template(&mut rng, &mut out, i);
        i += 1;
    }
    let w = &mut out;
    let _ = writeln!(
        w,
        "    @Override\n    public int compareTo({class}<K, V> other) {{\n        return Integer.compare(entries.size(), other.entries.size());\n    }}\n"
    );
    let _ = writeln!(
        w,
        "    @Override\n    public void close() {{\n        if (!closed) {{\n            closed = true;\n            entries.clear();\n            listeners.clear();\n        }}\n    }}\n"
    );
    let _ = writeln!(
        w,
        "    /** Something that wants to hear about changes. */\n    @FunctionalInterface\n    public interface Listener<T> {{\n        void changed(T value);\n    }}\n"
    );
    let _ = writeln!(
        w,
        "    enum State {{\n        NEW(\"new\"),\n        RUNNING(\"running\") {{\n            @Override\n            boolean active() {{\n                return true;\n            }}\n        }},\n        STOPPED(\"stopped\");\n\n        private final String label;\n\n        State(String label) {{\n            this.label = label;\n        }}\n\n        boolean active() {{\n            return false;\n        }}\n    }}\n"
    );
    let _ = writeln!(
        w,
        "    record Snapshot<K>(K key, long version, Instant at) {{\n        Snapshot {{\n            Objects.requireNonNull(key);\n        }}\n    }}\n}}"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_class_is_about_the_requested_size_and_parses_cleanly() {
        let text = generated_java_class(7, 500);
        let lines = text.lines().count();
        assert!((450..=600).contains(&lines), "{lines} lines");
        let tree = refscope_syntax::parse_only(text.as_bytes()).expect("a tree");
        assert!(
            !tree.root_node().has_error(),
            "generated Java has syntax errors"
        );
        let facts = refscope_syntax::extract(text.as_bytes());
        assert_eq!(facts.diagnostics.n_syntax_errors, 0);
        assert!(facts.elements.len() > 30);
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(generated_java_class(3, 200), generated_java_class(3, 200));
        assert_ne!(generated_java_class(3, 200), generated_java_class(4, 200));
    }
}
