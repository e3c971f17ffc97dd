//! HTML for coloured Quake names and plain escaping. Every text run is escaped here, so the result
//! is safe to insert unescaped into a page.

use crate::model::names::colour_runs;

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// [`escape`] appended to `out`: the runs between the characters it replaces are copied whole
/// (Tera's autoescape and the Rust-written rows call it on every value of a page).
pub fn escape_into(out: &mut String, text: &str) {
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let replacement = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#39;",
            // Control characters have no business in a page.
            c if c.is_control() => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        out.push_str(replacement);
        start = i + c.len_utf8();
    }
    out.push_str(&text[start..]);
}

/// A name with colour codes as `<span class="qN">` runs, every run escaped. Bidirectional
/// control characters cannot leak: the whole name is isolated in a `<bdi>`.
pub fn name_html(name: &str) -> String {
    let mut out = String::from("<bdi class=\"qname\">");
    for run in colour_runs(name) {
        match run.colour {
            Some(c) => {
                out.push_str(&format!("<span class=\"q{c}\">"));
                escape_into(&mut out, run.text);
                out.push_str("</span>");
            }
            None => escape_into(&mut out, run.text),
        }
    }
    out.push_str("</bdi>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_escaped() {
        assert_eq!(
            name_html("^1<b>^7\"x\""),
            "<bdi class=\"qname\"><span class=\"q1\">&lt;b&gt;</span><span class=\"q7\">&quot;x&quot;</span></bdi>"
        );
        assert_eq!(escape("a\u{0}b'"), "ab&#39;");
    }

    /// `escape` as it was, one character at a time: the reference the run-copying one is
    /// compared with.
    fn escape_by_char(text: &str) -> String {
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#39;"),
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn escape_copies_runs_as_the_char_loop_wrote_them() {
        for text in [
            "",
            "plain",
            "&",
            "<script>alert('x')</script>",
            "\"quoted\" & 'single'",
            "a\u{7}b\u{1b}[31mc\u{7f}\u{85}\u{9f}d",
            "é<ü>\u{202e}ñ&",
            "&&<<>>",
        ] {
            assert_eq!(escape(text), escape_by_char(text), "{text:?}");
        }
    }
}
