//! The names a site must not publish, as a filter over free text: the examples of skipped lines
//! in the diagnostics are the text it reads. It knows names, not where they come from
//! ([`super::moderation`] gathers them).

use std::borrow::Cow;

/// What a hidden or excluded player's name becomes in a published example.
pub const HIDDEN_NAME: &str = "[hidden]";

/// The names a site must not publish (hidden and excluded players, every name each used), as
/// found in free text such as the examples of skipped lines: in any colour spelling (the text is
/// compared with its colour codes removed, as `plain_name` removes them), and only as a whole
/// name, so that a short name (`a`) takes no bite out of other words. Each match becomes
/// [`HIDDEN_NAME`]; the rest of the line is kept, as it says why the line was skipped.
#[derive(Debug, Clone, Default)]
pub struct NameFilter {
    /// Plain names, without repeats or empty ones.
    names: Vec<String>,
}

impl NameFilter {
    /// A filter of `names` (colour codes in them are ignored).
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut names: Vec<String> = names
            .into_iter()
            .map(|n| super::names::plain_name(n.as_ref()))
            .filter(|n| !n.is_empty())
            .collect();
        names.sort_unstable();
        names.dedup();
        NameFilter { names }
    }

    /// Whether there is no name to leave out.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// `text` with every whole-name occurrence of a filtered name replaced by [`HIDDEN_NAME`]. A
    /// text that ends in the first letters of a name (an example cut short) loses
    /// them too, from two letters on.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.names.is_empty() {
            return Cow::Borrowed(text);
        }
        let (plain, at) = plain_with_offsets(text);
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        // Whole when no word character goes on past an end of the name that is itself one.
        let whole = |start: usize, end: usize| {
            let (first, last) = (
                plain[start..end].chars().next(),
                plain[..end].chars().next_back(),
            );
            let runs_on_before = word(first) && word(plain[..start].chars().next_back());
            let runs_on_after = word(last) && word(plain[end..].chars().next());
            !runs_on_before && !runs_on_after
        };
        let mut found: Vec<(usize, usize)> = Vec::new();
        for name in &self.names {
            found.extend(
                plain
                    .match_indices(name.as_str())
                    .map(|(start, _)| (start, start + name.len()))
                    .filter(|&(start, end)| whole(start, end)),
            );
            let cut = (2..name.len())
                .rev()
                .filter(|&n| name.is_char_boundary(n) && name[..n].chars().nth(1).is_some())
                .find(|&n| plain.ends_with(&name[..n]) && whole(plain.len() - n, plain.len()));
            if let Some(n) = cut {
                found.push((plain.len() - n, plain.len()));
            }
        }
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        found.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for (start, end) in found {
            // In the text's own bytes: from the name's first letter to past its last one.
            let (from, to) = (at[start], at[end - 1] + 1);
            if to <= copied {
                continue; // within a name already replaced
            }
            if from >= copied {
                out.push_str(&text[copied..from]);
                out.push_str(HIDDEN_NAME);
            }
            copied = to;
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }
}

/// `text` without its colour codes (`^` and a letter or digit, as `plain_name` removes them, but
/// not trimmed), and for each byte of that the index of the byte of `text` it came from.
fn plain_with_offsets(text: &str) -> (String, Vec<usize>) {
    let bytes = text.as_bytes();
    let mut plain = String::with_capacity(text.len());
    let mut at = Vec::with_capacity(text.len());
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        if c == '^' && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) {
            i += 2;
            continue;
        }
        plain.push(c);
        at.extend(i..i + c.len_utf8());
        i += c.len_utf8();
    }
    (plain, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_names_leave_examples_in_any_colour_spelling_and_only_whole() {
        let filter = NameFilter::new(["Agea", "^1Pl4^7StiK0", "a", "iClan|Louis92"]);
        for (text, published) in [
            (
                "2 1 20: Pl4StiK0 killed Agea by UT_MOD_G36",
                "2 1 20: [hidden] killed [hidden] by UT_MOD_G36",
            ),
            (
                "Kill: 2 3 10: ^1Ag^7ea killed ^3Pl4StiK0^7 by MOD_X",
                "Kill: 2 3 10: ^1[hidden] killed ^3[hidden]^7 by MOD_X",
            ),
            // A short name only as a whole word: `a` is hidden, `Agea2` and `ab` are others.
            (
                "a killed Agea2 by a shot at ab",
                "[hidden] killed Agea2 by [hidden] shot at ab",
            ),
            ("W;;[guid];iClan|Louis92", "W;;[guid];[hidden]"),
            ("\\name\\Agea\\", "\\name\\[hidden]\\"),
            // An example cut in the middle of a name loses what it has of it.
            (
                "10  ping: 6  client: 1 Age",
                "10  ping: 6  client: 1 [hidden]",
            ),
            ("nothing here, Ageless", "nothing here, Ageless"),
        ] {
            assert_eq!(filter.text(text), published, "{text}");
        }
        assert!(matches!(filter.text("Vandal"), Cow::Borrowed(_)));
        assert!(NameFilter::new(["", "^7"]).is_empty());
    }
}
