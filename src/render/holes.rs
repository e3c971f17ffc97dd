//! Large HTML parts of a page kept out of Tera: the view holds a short mark in a part's place,
//! Tera renders the page around it, and the part is spliced in where its mark landed. Tera
//! copies every value of a view into its context, writes it out again and checks the whole
//! page's UTF-8 once more; a match page's kill list and frag timeline are most of its bytes,
//! so that copying was a good part of rendering one (issue 18).
//!
//! Only for pages of the built-in templates, which print each such part once, as it is
//! (`| safe`): a site's own template might print a part twice, measure it or change it, and a
//! mark would then tell a different story than the part. A mark holds NUL bytes, which no
//! escaped text holds ([`super::colour::escape`] drops control characters) nor any HTML that
//! Rust builds from escaped parts, and [`fill`] refuses a page in which a mark is not found
//! exactly once: the page is then rendered with the parts in its view.

/// A part taken out of a view, and the mark left in its place.
pub(super) struct Hole {
    mark: &'static str,
    html: String,
}

/// Takes the HTML out of `field`, leaving `mark` in its place; None (and `field` left as it
/// is) when it is empty, so that a template's test of the field (`{% if .. %}`) still sees an
/// empty value.
pub(super) fn punch(field: &mut String, mark: &'static str) -> Option<Hole> {
    if field.is_empty() {
        return None;
    }
    let html = std::mem::replace(field, mark.to_string());
    Some(Hole { mark, html })
}

/// `page` with each hole's mark replaced by its part; None when a mark is not in the page
/// exactly once.
pub(super) fn fill(page: &str, holes: &[Hole]) -> Option<String> {
    let mut at: Vec<(usize, &Hole)> = Vec::with_capacity(holes.len());
    for hole in holes {
        let mut found = memchr::memmem::find_iter(page.as_bytes(), hole.mark.as_bytes());
        let (Some(pos), None) = (found.next(), found.next()) else {
            return None;
        };
        at.push((pos, hole));
    }
    at.sort_by_key(|&(pos, _)| pos);
    let extra: usize = holes.iter().map(|h| h.html.len()).sum();
    let mut out = String::with_capacity(page.len() + extra);
    let mut from = 0;
    for (pos, hole) in at {
        // Two marks found overlapping (the NUL that ends one starting the other) are not
        // both what the template printed.
        if pos < from {
            return None;
        }
        out.push_str(&page[from..pos]);
        out.push_str(&hole.html);
        from = pos + hole.mark.len();
    }
    out.push_str(&page[from..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "\0hole:a\0";
    const B: &str = "\0hole:b\0";

    /// Parts go back where their marks are, in any order; an empty part punches no hole.
    #[test]
    fn parts_go_where_their_marks_are() {
        let mut a = "<tr>a</tr>".to_string();
        let mut b = "<svg/>".to_string();
        let mut empty = String::new();
        let holes: Vec<Hole> = [
            punch(&mut b, B),
            punch(&mut a, A),
            punch(&mut empty, "\0e\0"),
        ]
        .into_iter()
        .flatten()
        .collect();
        assert_eq!((a.as_str(), b.as_str(), empty.as_str()), (A, B, ""));
        let page = format!("<p>{a}</p><div>{b}</div>");
        assert_eq!(
            fill(&page, &holes).as_deref(),
            Some("<p><tr>a</tr></p><div><svg/></div>")
        );
    }

    /// A mark printed twice, or not at all, refuses the page: it is rendered whole instead.
    #[test]
    fn a_mark_not_found_once_refuses_the_page() {
        let mut a = "x".to_string();
        let holes: Vec<Hole> = punch(&mut a, A).into_iter().collect();
        assert_eq!(fill(&format!("{a}{a}"), &holes), None);
        assert_eq!(fill("no mark", &holes), None);
    }
}
