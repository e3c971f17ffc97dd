//! `feed.xml`: an Atom feed of the newest matches, written only when `base_url` is set (feeds need
//! absolute links; the rest of the site never does) and only with dated matches (Atom entries need
//! a time). Every text is XML-escaped.

use crate::model::MatchList;
use chrono::NaiveDateTime;

use super::colour::escape;
use crate::model::names::plain_name;

/// How many matches the feed lists.
const ENTRIES: usize = 20;

/// The feed, or None when there is no `base_url` or no dated match.
pub fn atom(title: &str, base_url: Option<&str>, matches: MatchList) -> Option<String> {
    let base = base_url?.trim_end_matches('/');
    let mut dated: Vec<(usize, NaiveDateTime)> = matches
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.start.map(|t| (i, t)))
        .collect();
    dated.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    dated.truncate(ENTRIES);
    let newest = dated.first()?.1;
    let stamp = |t: NaiveDateTime| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n",
    );
    xml.push_str(&format!("  <title>{}</title>\n", escape(title)));
    xml.push_str(&format!("  <id>{}/</id>\n", escape(base)));
    xml.push_str(&format!("  <link href=\"{}/\"/>\n", escape(base)));
    xml.push_str(&format!("  <updated>{}</updated>\n", stamp(newest)));
    for (i, t) in dated {
        let m = matches.at(i);
        let m = &*m;
        let link = format!("{base}/{}", crate::render::match_url(&m.id));
        let server = plain_name(&m.server);
        xml.push_str("  <entry>\n");
        xml.push_str(&format!(
            "    <title>{} ({}){}</title>\n",
            escape(&m.map),
            escape(&m.gametype.name),
            if server.is_empty() {
                String::new()
            } else {
                format!(" on {}", escape(&server))
            }
        ));
        xml.push_str(&format!(
            "    <id>{}</id>\n    <link href=\"{}\"/>\n",
            escape(&link),
            escape(&link)
        ));
        xml.push_str(&format!("    <updated>{}</updated>\n", stamp(t)));
        xml.push_str("  </entry>\n");
    }
    xml.push_str("</feed>\n");
    Some(xml)
}
