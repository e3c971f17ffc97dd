//! HTML for coloured Quake names and plain escaping. Every text run is escaped here, so the result
//! is safe to insert unescaped into a page.

use crate::model::names::colour_runs;

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters have no business in a page.
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A name with colour codes as `<span class="qN">` runs, every run escaped. Bidirectional
/// control characters cannot leak: the whole name is isolated in a `<bdi>`.
pub fn name_html(name: &str) -> String {
    let mut out = String::from("<bdi class=\"qname\">");
    for run in colour_runs(name) {
        match run.colour {
            Some(c) => {
                out.push_str(&format!("<span class=\"q{c}\">"));
                out.push_str(&escape(run.text));
                out.push_str("</span>");
            }
            None => out.push_str(&escape(run.text)),
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
}
