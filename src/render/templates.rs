//! The Tera templates: the built-in theme is embedded in the binary; a site's own `templates/`
//! folder overrides built-ins name by name, and a user template can extend a built-in one as
//! `builtin/<name>`. The only module that talks to Tera.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;
use tera::Tera;

use super::views::Common;

/// Built-in templates: (name, source).
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("players.html", include_str!("../../templates/players.html")),
    ("ladders.html", include_str!("../../templates/ladders.html")),
    ("matches.html", include_str!("../../templates/matches.html")),
    ("maps.html", include_str!("../../templates/maps.html")),
    ("player.html", include_str!("../../templates/player.html")),
    ("map.html", include_str!("../../templates/map.html")),
    ("match.html", include_str!("../../templates/match.html")),
    ("page.html", include_str!("../../templates/page.html")),
    ("ranking.html", include_str!("../../templates/ranking.html")),
    ("clans.html", include_str!("../../templates/clans.html")),
    ("clan.html", include_str!("../../templates/clan.html")),
    ("servers.html", include_str!("../../templates/servers.html")),
    ("server.html", include_str!("../../templates/server.html")),
    ("seasons.html", include_str!("../../templates/seasons.html")),
    ("season.html", include_str!("../../templates/season.html")),
    ("balance.html", include_str!("../../templates/balance.html")),
    (
        "partials/static_table.html",
        include_str!("../../templates/partials/static_table.html"),
    ),
    (
        "partials/becker_table.html",
        include_str!("../../templates/partials/becker_table.html"),
    ),
    (
        "partials/board_table.html",
        include_str!("../../templates/partials/board_table.html"),
    ),
    (
        "partials/player_table.html",
        include_str!("../../templates/partials/player_table.html"),
    ),
    (
        "partials/balance_table.html",
        include_str!("../../templates/partials/balance_table.html"),
    ),
    (
        "partials/match_table.html",
        include_str!("../../templates/partials/match_table.html"),
    ),
    (
        "partials/map_table.html",
        include_str!("../../templates/partials/map_table.html"),
    ),
    (
        "partials/season_table.html",
        include_str!("../../templates/partials/season_table.html"),
    ),
    (
        "partials/meta.html",
        include_str!("../../templates/partials/meta.html"),
    ),
    (
        "partials/heat_panel.html",
        include_str!("../../templates/partials/heat_panel.html"),
    ),
    (
        "partials/heat_inline.html",
        include_str!("../../templates/partials/heat_inline.html"),
    ),
    (
        "partials/map_shares.html",
        include_str!("../../templates/partials/map_shares.html"),
    ),
];

/// Built-in static assets: (path under `static/`, bytes).
pub const BUILTIN_STATIC: &[(&str, &[u8])] = &[
    ("style.css", include_bytes!("../../static/style.css")),
    ("site.js", include_bytes!("../../static/site.js")),
    ("balance.js", include_bytes!("../../static/balance.js")),
    ("favicon.ico", include_bytes!("../../static/favicon.ico")),
];

/// The template set used to render pages.
pub struct Templates {
    tera: Tera,
    /// Key of every template source (built-in and the site's): pages change when it does.
    fingerprint: u64,
    /// Names of the templates the site's own folder supplies.
    overridden: std::collections::BTreeSet<String>,
}

impl Templates {
    /// Built-in templates, overridden by any `*.html` under `site_templates` (if it exists).
    pub fn load(site_templates: Option<&Path>) -> Result<Templates> {
        let mut sources: BTreeMap<String, String> = BTreeMap::new();
        let mut overridden = std::collections::BTreeSet::new();
        for (name, text) in BUILTIN_TEMPLATES {
            sources.insert(name.to_string(), text.to_string());
            sources.insert(format!("builtin/{name}"), text.to_string());
        }
        if let Some(dir) = site_templates.filter(|d| d.is_dir()) {
            for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
                let entry =
                    entry.with_context(|| format!("cannot read templates in {}", dir.display()))?;
                if !entry.file_type().is_file() {
                    continue;
                }
                let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
                let name = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                let text = std::fs::read_to_string(entry.path())
                    .with_context(|| format!("cannot read template {}", entry.path().display()))?;
                overridden.insert(name.clone());
                sources.insert(name, text);
            }
        }
        let mut hasher = crate::hash::Hasher::new();
        for (name, text) in &sources {
            hasher.str(name);
            hasher.str(text);
        }
        let mut tera = Tera::default();
        // Autoescape also drops control characters: log text carries escape sequences and bells.
        tera.set_escape_fn(super::colour::escape);
        // Only a site's own template can extend `builtin/<name>`: without one, Tera is not
        // given those copies, which would double the parsing. The fingerprint above still
        // hashes every source.
        let own = !overridden.is_empty();
        let parsed = sources
            .iter()
            .filter(|(name, _)| own || !name.starts_with("builtin/"));
        tera.add_raw_templates(parsed.map(|(n, t)| (n.as_str(), t.as_str())))
            .map_err(|e| anyhow::anyhow!("{}", tera_error_chain(&e)))?;
        Ok(Templates {
            tera,
            fingerprint: hasher.finish(),
            overridden,
        })
    }

    /// A key of all template sources.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Whether every template is a built-in one (the site has no `templates/` of its own).
    pub fn builtin(&self) -> bool {
        self.overridden.is_empty()
    }

    /// Whether the site's own `templates/` folder replaces the built-in template `name`.
    pub fn overridden(&self, name: &str) -> bool {
        self.overridden.contains(name)
    }

    /// Renders template `name` with the fields of `common` and of `view` (both serialisable
    /// structs) at the top level of the context.
    pub fn render(&self, name: &str, common: &Common, view: &impl Serialize) -> Result<String> {
        let mut ctx = tera::Context::from_serialize(common)
            .with_context(|| format!("cannot prepare data for template {name}"))?;
        // The navigation as the built-in `base.html` prints it: made here, from `common`, only
        // for a page that is rendered (a page's key hashes `common`, which this derives from).
        ctx.insert(
            "nav_html",
            &super::helpers::nav_html(common.nav, common.root, &common.current),
        );
        ctx.extend(
            tera::Context::from_serialize(view)
                .with_context(|| format!("cannot prepare data for template {name}"))?,
        );
        self.tera
            .render(name, &ctx)
            .map_err(|e| anyhow::anyhow!("{}", tera_error_chain(&e)))
    }
}

/// Tera puts the useful part (template name, line, what went wrong) in the error's sources.
fn tera_error_chain(e: &tera::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files under `dir` of the source tree, relative, `/`-separated.
    fn source_files(dir: &str) -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut out: Vec<String> = walkdir::WalkDir::new(&root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(&root).unwrap();
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .collect();
        out.sort();
        out
    }

    /// `nav_html` writes what the built-in `base.html`'s old loop over `nav` wrote, byte for
    /// byte: markup and control characters in labels and URLs, external links, the current page
    /// marked, at the root and one folder down.
    #[test]
    fn nav_html_equals_the_template_loop_over_nav() {
        use super::super::helpers::{nav_html, nav_item};
        use super::super::views::NavItem;
        const LOOP: &str = "{% for item in nav %}{% if item.external %}<a href=\"{{ item.url }}\">{{ item.label }}</a>{% else %}<a href=\"{{ root | safe }}{{ item.url | safe }}\"{% if item.url == current %} aria-current=\"page\"{% endif %}>{{ item.label }}</a>{% endif %}{% endfor %}";
        let mut tera = Tera::default();
        tera.set_escape_fn(super::super::colour::escape);
        tera.add_raw_template("nav.html", LOOP).unwrap();
        let nav = vec![
            nav_item("Overview", "index.html"),
            nav_item("Rules & <things> \u{7}", "pages/rules.html"),
            nav_item("Odd \"quote's\"", "pages/a&b.html"),
            nav_item("Bell", "pages/a\u{7}b.html"),
            NavItem {
                label: "Forum <b>".into(),
                url: "https://forum.example/?a=1&b=<2>\"".into(),
                external: true,
            },
        ];
        for root in ["", "../"] {
            for current in [
                "index.html",
                "pages/rules.html",
                "pages/a&b.html",
                "pages/ab.html",
                "matches/x.html",
            ] {
                let mut ctx = tera::Context::new();
                ctx.insert("nav", &nav);
                ctx.insert("root", root);
                ctx.insert("current", current);
                let looped = tera.render("nav.html", &ctx).unwrap();
                assert_eq!(nav_html(&nav, root, current), looped, "{root}{current}");
            }
        }
    }

    /// A site built outside the repository has only what the binary holds: every file of the
    /// theme in the source tree must be embedded, byte for byte.
    #[test]
    fn every_theme_file_is_embedded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for rel in source_files("static") {
            let (_, bytes) = BUILTIN_STATIC
                .iter()
                .find(|(p, _)| *p == rel)
                .unwrap_or_else(|| panic!("static/{rel} is not in BUILTIN_STATIC"));
            assert_eq!(
                *bytes,
                std::fs::read(root.join("static").join(&rel)).unwrap()
            );
        }
        for rel in source_files("templates") {
            assert!(
                BUILTIN_TEMPLATES.iter().any(|(p, _)| *p == rel),
                "templates/{rel} is not in BUILTIN_TEMPLATES"
            );
        }
    }
}
