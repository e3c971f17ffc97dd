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
    let at = places(page, holes)?;
    let extra: usize = holes.iter().map(|h| h.html.len()).sum();
    let mut out = String::with_capacity(page.len() + extra);
    let mut from = 0;
    for (pos, n) in at {
        out.push_str(&page[from..pos]);
        out.push_str(&holes[n].html);
        from = pos + holes[n].mark.len();
    }
    out.push_str(&page[from..]);
    Some(out)
}

/// [`fill`] as the parts of a file ([`super::OutputFile::from_parts`]): the page's text
/// between the marks, and each hole's part moved rather than copied (a part is most of the
/// page's bytes). None when a mark is not in the page exactly once.
pub(super) fn fill_parts(page: &str, holes: Vec<Hole>) -> Option<Vec<Vec<u8>>> {
    let at = places(page, &holes)?;
    let mut holes: Vec<Option<Hole>> = holes.into_iter().map(Some).collect();
    let mut parts = Vec::with_capacity(2 * at.len() + 1);
    let mut from = 0;
    for (pos, n) in at {
        let hole = holes[n].take()?;
        parts.push(page.as_bytes()[from..pos].to_vec());
        parts.push(hole.html.into_bytes());
        from = pos + hole.mark.len();
    }
    parts.push(page.as_bytes()[from..].to_vec());
    Some(parts)
}

/// Where each hole's mark is in `page` and which hole's it is, in the page's order; None when
/// a mark is not in the page exactly once, or two marks overlap.
fn places(page: &str, holes: &[Hole]) -> Option<Vec<(usize, usize)>> {
    let mut at = Vec::with_capacity(holes.len());
    for (n, hole) in holes.iter().enumerate() {
        let mut found = memchr::memmem::find_iter(page.as_bytes(), hole.mark.as_bytes());
        let (Some(pos), None) = (found.next(), found.next()) else {
            return None;
        };
        at.push((pos, n));
    }
    at.sort_unstable();
    // Two marks found overlapping (the NUL that ends one starting the other) are not both
    // what the template printed.
    let overlap = (at.windows(2)).any(|w| w[1].0 < w[0].0 + holes[w[0].1].mark.len());
    (!overlap).then_some(at)
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
        let parts = fill_parts(&page, holes).unwrap();
        assert_eq!(parts.concat(), b"<p><tr>a</tr></p><div><svg/></div>");
        assert_eq!(parts[1], b"<tr>a</tr>", "each part on its own");
    }

    /// A mark printed twice, or not at all, refuses the page: it is rendered whole instead.
    #[test]
    fn a_mark_not_found_once_refuses_the_page() {
        let mut a = "x".to_string();
        let holes: Vec<Hole> = punch(&mut a, A).into_iter().collect();
        assert_eq!(fill(&format!("{a}{a}"), &holes), None);
        assert_eq!(fill("no mark", &holes), None);
        assert_eq!(fill_parts(&format!("{a}{a}"), holes), None);
        // Overlapping marks: the NUL that ends one starts the other.
        let (mut x, mut y) = ("x".to_string(), "y".to_string());
        let holes: Vec<Hole> = [punch(&mut x, "\0a\0"), punch(&mut y, "\0b")]
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(fill("<\0a\0b>", &holes), None);
        assert_eq!(fill("<\0a\0\0b>", &holes).as_deref(), Some("<xy>"));
    }
}
