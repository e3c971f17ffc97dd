//! Markdown to HTML (pulldown-cmark) for the explanatory pages and site-owner pages. Raw HTML in the
//! Markdown is escaped, not passed through.

use pulldown_cmark::{Event, Options, Parser, html};

/// Renders Markdown to HTML, with tables; raw HTML blocks and inline HTML are shown as text.
pub fn to_html(markdown: &str) -> String {
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, parser);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_escapes_raw_html() {
        let html = to_html("# Hi\n\n<script>x</script>\n\n| a |\n|---|\n| 1 |\n");
        assert!(html.contains("<h1>Hi</h1>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("<table>"));
    }
}
