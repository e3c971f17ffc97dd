//! Any bytes as a log through the whole pipeline after crawling: parse, order, identities,
//! counts, clans, ratings, pages and JSON. Must never panic, every output path must be safe, and
//! every page must be valid UTF-8 without a live `<script` that the templates did not write.
#![no_main]

use std::path::Path;

use fragstats::build::{render, RenderRequest, Resume};
use fragstats::read::history_of_one_log;
use fragstats::config::Config;
use fragstats::diagnostics::{Diagnostics, FileReport};
use fragstats::leftovers::Leftovers;
use fragstats::render::PageCache;
use fragstats::parse::{LogFormat, Source, q3::Quake3};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = Source { path: "fuzz.log".into(), file_index: 0 };
    let mut report = FileReport::new("fuzz.log");
    let mut input = data;
    let mut matches = Vec::new();
    Quake3.parse(&mut input, &source, &mut report, &mut |m| matches.push(m), None).unwrap();
    // Packed in memory, as a build without a state folder packs it.
    let history = history_of_one_log(matches, &mut report);
    let config = Config::default();
    let diagnostics = Diagnostics { files: vec![report] };
    let request = RenderRequest {
        matches: history.list(),
        diagnostics: &diagnostics,
        config: &config,
        site_dir: Path::new("/nonexistent-fuzz-site"),
        resume: Resume::None,
        rule: Default::default(),
        state_dir: None,
        sink: None,
        leftovers: Leftovers::Free,
    };
    let site = render(request, PageCache::default).unwrap();
    for f in &site.files {
        assert!(!f.path.contains("..") && !f.path.starts_with('/'), "{}", f.path);
        if f.path.ends_with(".html") {
            let text = String::from_utf8(f.to_vec()).unwrap();
            assert!(!text.contains("<script>alert"), "{}", f.path);
        }
    }
});
