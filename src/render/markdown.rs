//! Markdown to HTML (pulldown-cmark) for the explanatory pages and site-owner pages. Raw HTML in the
//! Markdown is escaped, not passed through.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// Renders Markdown to HTML, with tables; raw HTML blocks and inline HTML are shown as text, and
/// links or images with a `javascript:`/`data:` address lead nowhere. A table is wrapped in a
/// `div.scroll`, so a wide one scrolls on a phone instead of widening the page.
pub fn to_html(markdown: &str) -> String {
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).flat_map(|event| {
        let wrap = |html: &'static str| Event::Html(CowStr::Borrowed(html));
        match event {
            Event::Start(Tag::Table(_)) => vec![wrap("<div class=\"scroll\">"), event],
            Event::End(TagEnd::Table) => vec![event, wrap("</div>")],
            other => vec![safe_event(other)],
        }
    });
    let mut out = String::new();
    html::push_html(&mut out, parser);
    out
}

/// Raw HTML from the Markdown becomes text; unsafe link and image addresses lead nowhere.
fn safe_event(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        other => other,
    }
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    if ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|s| lower.starts_with(s))
    {
        CowStr::Borrowed("#")
    } else {
        url
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_escapes_raw_html() {
        let html = to_html("# Hi\n\n<script>x</script>\n\n| a |\n|---|\n| 1 |\n");
        assert!(html.contains("<h1>Hi</h1>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("<div class=\"scroll\"><table>"), "{html}");
        assert!(
            html.contains("</table>\n</div>") || html.contains("</table></div>"),
            "{html}"
        );
        let html = to_html("[x](javascript:alert(1)) [y]( JavaScript:x) [ok](rules.html)");
        assert!(!html.to_lowercase().contains("javascript"), "{html}");
        assert!(html.contains("href=\"rules.html\""));
    }
}
