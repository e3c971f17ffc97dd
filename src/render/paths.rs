//! Safe file names for pages: slugs derived from names are ASCII letters, digits and `-`, never
//! empty, never starting with a dot, never a reserved device name, and unique within a folder.

/// Longest slug kept before a collision suffix.
const MAX_SLUG: usize = 48;

/// Names Windows will not create as files, whatever the extension.
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "index",
];

/// A slug for `name`: lower-case ASCII letters and digits, other runs become one `-`.
/// Falls back to `fallback` when nothing usable is left. Total: any input gives a safe slug.
pub fn slug(name: &str, fallback: &str) -> String {
    let mut out = String::with_capacity(name.len().min(MAX_SLUG));
    let mut dash = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
            if out.len() >= MAX_SLUG {
                break;
            }
        } else {
            dash = true;
        }
    }
    if out.is_empty() {
        out.push_str(fallback);
    }
    if RESERVED.contains(&out.as_str()) {
        out.push_str("-1");
    }
    out
}

/// Assigns unique slugs to `names` in the order given (give them in a stable order): the second
/// `foo` becomes `foo-2`, and so on. The slugs are made in parallel (a public server's site has
/// tens of thousands of players); only the suffixes are given in order.
pub fn unique_slugs<'a>(names: impl IntoIterator<Item = &'a str>, fallback: &str) -> Vec<String> {
    use rayon::prelude::*;
    let names: Vec<&str> = names.into_iter().collect();
    let bases: Vec<String> = names.par_iter().map(|name| slug(name, fallback)).collect();
    let mut used: ahash::HashSet<std::borrow::Cow<'_, str>> = Default::default();
    used.reserve(bases.len());
    let mut renamed = vec![None; bases.len()];
    for (base, renamed) in bases.iter().zip(&mut renamed) {
        if used.insert(base.as_str().into()) {
            continue;
        }
        let mut n = 2;
        let candidate = loop {
            let candidate = format!("{base}-{n}");
            if !used.contains(candidate.as_str()) {
                break candidate;
            }
            n += 1;
        };
        used.insert(candidate.clone().into());
        *renamed = Some(candidate);
    }
    drop(used);
    bases
        .into_iter()
        .zip(renamed)
        .map(|(base, renamed)| renamed.unwrap_or(base))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe() {
        assert_eq!(slug("[OA]Sarge", "p"), "oa-sarge");
        assert_eq!(slug("The Dude", "p"), "the-dude");
        assert_eq!(slug("../../etc/passwd", "p"), "etc-passwd");
        assert_eq!(slug("..", "p"), "p");
        assert_eq!(slug("ʚϊɞ", "p"), "p");
        assert_eq!(slug("CON", "p"), "con-1");
        assert_eq!(slug(&"a".repeat(500), "p").len(), MAX_SLUG);
    }

    #[test]
    fn collisions_get_suffixes() {
        let s = unique_slugs(["A b", "a-b", "a b", "x"], "p");
        assert_eq!(s, ["a-b", "a-b-2", "a-b-3", "x"]);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use std::collections::HashSet;

    proptest::proptest! {
        /// Any name gives a slug that is a safe, non-empty file name.
        #[test]
        fn slugs_are_total_and_safe(name in "\\PC*", fallback in "[a-z]{1,8}") {
            let s = slug(&name, &fallback);
            proptest::prop_assert!(!s.is_empty());
            proptest::prop_assert!(!s.starts_with('.') && !s.starts_with('-'));
            proptest::prop_assert!(s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
            proptest::prop_assert!(s.len() <= MAX_SLUG + 2);
        }

        /// The slugs made in parallel are those of one pass in order (the first `foo` keeps
        /// it, the next takes the first free `foo-N`), whatever names collide with suffixes.
        #[test]
        fn unique_slugs_equal_one_pass_in_order(names in proptest::collection::vec("[ab2-]{0,4}", 0..60)) {
            let mut used = HashSet::new();
            let expected: Vec<String> = names
                .iter()
                .map(|name| {
                    let base = slug(name, "p");
                    let mut candidate = base.clone();
                    let mut n = 2;
                    while used.contains(&candidate) {
                        candidate = format!("{base}-{n}");
                        n += 1;
                    }
                    used.insert(candidate.clone());
                    candidate
                })
                .collect();
            proptest::prop_assert_eq!(unique_slugs(names.iter().map(String::as_str), "p"), expected);
        }

        /// Unique slugs stay unique and safe whatever the names.
        #[test]
        fn unique_slugs_are_unique(names in proptest::collection::vec("[a-zA-Z .-]{0,6}", 0..40)) {
            let slugs = unique_slugs(names.iter().map(String::as_str), "p");
            let set: HashSet<&String> = slugs.iter().collect();
            proptest::prop_assert_eq!(set.len(), slugs.len());
        }
    }
}
