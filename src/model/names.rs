//! Player names: Quake colour codes (`^1Red^7Devil`), the plain name that identifies a player, and
//! the coloured runs a page renders. Does no escaping: the render layer escapes every run.

/// True when `bytes[i..]` starts a colour code: `^` then an ASCII letter or digit.
fn is_colour_code(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'^' && bytes.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The name with colour codes removed and surrounding white space trimmed: the identity key.
pub fn plain_name(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    let mut run_start = 0;
    while i < bytes.len() {
        if is_colour_code(bytes, i) {
            out.push_str(&name[run_start..i]);
            i += 2;
            run_start = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&name[run_start..]);
    out.trim().to_string()
}

/// A piece of a name in one colour. `colour` is the Quake 3 colour index 0-7 (None = default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColourRun<'a> {
    pub colour: Option<u8>,
    pub text: &'a str,
}

/// Splits a name into coloured runs, as the game draws it. Empty runs are dropped.
pub fn colour_runs(name: &str) -> Vec<ColourRun<'_>> {
    let bytes = name.as_bytes();
    let mut runs = Vec::new();
    let mut colour = None;
    let mut i = 0;
    let mut run_start = 0;
    while i < bytes.len() {
        if is_colour_code(bytes, i) {
            if run_start < i {
                runs.push(ColourRun {
                    colour,
                    text: &name[run_start..i],
                });
            }
            // Quake 3's ColorIndex: (c - '0') & 7, for letters too.
            colour = Some(bytes[i + 1].wrapping_sub(b'0') & 7);
            i += 2;
            run_start = i;
        } else {
            i += 1;
        }
    }
    if run_start < bytes.len() {
        runs.push(ColourRun {
            colour,
            text: &name[run_start..],
        });
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_codes_and_trims() {
        assert_eq!(plain_name("^1Red^7Devil"), "RedDevil");
        assert_eq!(plain_name("  ^5Angel^7yss "), "Angelyss");
        assert_eq!(plain_name("S p a c e "), "S p a c e");
        // `^` not followed by a letter or digit is text.
        assert_eq!(plain_name("a^^x^"), "a^^x^".replace("^x", ""));
        assert_eq!(plain_name("a^-b^"), "a^-b^");
        assert_eq!(plain_name("^^1x"), "^x");
        assert_eq!(plain_name("^1^2"), "");
    }

    #[test]
    fn multibyte_text_survives() {
        assert_eq!(plain_name("^3Jenna^7<3 ʚϊɞ"), "Jenna<3 ʚϊɞ");
        assert_eq!(plain_name("é^1ü"), "éü");
    }

    #[test]
    fn runs_follow_quake_colour_index() {
        let runs = colour_runs("^1Red^7Devil");
        assert_eq!(
            runs,
            vec![
                ColourRun {
                    colour: Some(1),
                    text: "Red"
                },
                ColourRun {
                    colour: Some(7),
                    text: "Devil"
                }
            ]
        );
        // ^9 wraps to 1, ^a is ('a' - '0') & 7 = 1.
        assert_eq!(colour_runs("^9x")[0].colour, Some(1));
        assert_eq!(colour_runs("^ax")[0].colour, Some(1));
        assert_eq!(colour_runs("plain")[0].colour, None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;

    proptest::proptest! {
        /// Stripping is total (one pass, as the game does), trimmed, and agrees with the runs a
        /// page draws: the runs' text, trimmed, is the plain name.
        #[test]
        fn colour_stripping_is_total(name in "\\PC*") {
            let plain = plain_name(&name);
            proptest::prop_assert_eq!(plain.trim(), plain.as_str());
            let joined: String = colour_runs(&name).iter().map(|r| r.text).collect();
            proptest::prop_assert_eq!(joined.trim(), plain.as_str());
            proptest::prop_assert!(colour_runs(&name).iter().all(|r| r.colour.is_none_or(|c| c < 8)));
        }
    }
}
