//! The house's plan: no two top-level modules of `src/` import each other, directly or through
//! others, so every arrow of the import graph points one way (model and parse at the bottom,
//! the commands at the top). Reads the source as text: a `crate::name` outside comments and
//! outside a file's `#[cfg(test)] mod tests` is an import of `name` (tests may reach anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level module a file under `src/` belongs to (`src/rating/systems/ns2.rs` -> `rating`).
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap();
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names after each `crate::` in the code of `source` (not its comments or its tests).
fn imports(source: &str) -> BTreeSet<String> {
    let code = match source.find("#[cfg(test)]\nmod tests") {
        Some(at) => &source[..at],
        None => source,
    };
    let mut found = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap();
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` names several: each counts.
            if name.is_empty() && rest.starts_with('{') {
                let inner = rest[1..].split('}').next().unwrap_or("");
                for part in inner.split(',') {
                    let part: String = (part.trim().chars())
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !part.is_empty() {
                        found.insert(part);
                    }
                }
            } else if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Every file's imports of other top-level modules: (from, to) -> the files that make the arrow.
fn graph() -> BTreeMap<(String, String), Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let from = module_of(relative);
        let name = file.file_name().unwrap().to_string_lossy();
        // The crate roots, the test-only helpers and tests kept in their own files.
        if ["lib", "main", "testdata"].contains(&from.as_str()) || name.ends_with("tests.rs") {
            continue;
        }
        let source = std::fs::read_to_string(&file).unwrap();
        for to in imports(&source) {
            if to != from && to != "testdata" {
                let key = (from.clone(), to);
                edges
                    .entry(key)
                    .or_default()
                    .push(relative.display().to_string());
            }
        }
    }
    edges
}

/// The arrows that lie on a circle: `a -> b` where `b` reaches back to `a`.
fn circular(edges: &BTreeMap<(String, String), Vec<String>>) -> Vec<String> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let reaches = |start: &str, goal: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(at) = stack.pop() {
            if at == goal {
                return true;
            }
            if seen.insert(at) {
                stack.extend(next.get(at).into_iter().flatten());
            }
        }
        false
    };
    edges
        .iter()
        .filter(|((from, to), _)| reaches(to, from))
        .map(|((from, to), files)| format!("{from} -> {to} ({})", files.join(", ")))
        .collect()
}

#[test]
fn no_two_top_level_modules_import_each_other() {
    let edges = graph();
    assert!(
        edges.contains_key(&("build".to_string(), "render".to_string())),
        "the reader of imports found no arrow it must find: {edges:?}"
    );
    let circle = circular(&edges);
    assert!(
        circle.is_empty(),
        "arrows on a circle of imports:\n{}",
        circle.join("\n")
    );
}

#[test]
fn the_reader_of_imports_sees_paths_groups_and_skips_comments_and_tests() {
    let source = "use crate::model::Match;\nuse crate::{fold, rating::Headline};\n\
                  // crate::render in a comment\nlet x = crate::stats::of(); // crate::output\n\
                  #[cfg(test)]\nmod tests {\n    use crate::build;\n}\n";
    let found: Vec<String> = imports(source).into_iter().collect();
    assert_eq!(found, ["fold", "model", "rating", "stats"]);
    let mut edges = BTreeMap::new();
    edges.insert(("a".to_string(), "b".to_string()), vec!["a.rs".to_string()]);
    edges.insert(("b".to_string(), "c".to_string()), vec!["b.rs".to_string()]);
    assert!(circular(&edges).is_empty());
    edges.insert(
        ("c".to_string(), "a".to_string()),
        vec!["c/x.rs".to_string()],
    );
    assert_eq!(circular(&edges).len(), 3);
}
