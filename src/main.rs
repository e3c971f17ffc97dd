//! The `fragstats` binary: parses the command line, runs the build, prints the summary.
//! Exit status: 0 site written, 1 nothing could be built (the error says why; with `--strict`,
//! also a `[moderation]` entry or `bots` setting that matches no player), 2 bad usage, 3 site
//! written but something was skipped and `--strict` was given.

use std::io::Write as _;

use clap::Parser;
use fragstats::build::{BuildRequest, build};
use fragstats::cli::{BuildArgs, Cli, Command, EvaluateArgs, ExportArgs, ForgetArgs};
use fragstats::leftovers::Leftovers;

/// Rendering allocates many small strings on every thread; mimalloc handles that far better than
/// the system allocator. Built without transparent huge pages (its `no_thp` feature): zeroing
/// 2 MB pages of which a build touches little cost a tenth of a small site's build and 5% more
/// peak memory on the 1 GB archive (benches/build_speed.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (option 15 of the v3 its crate builds): how long memory
/// freed stays with the process before it goes back to the system.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay in milliseconds: 0, freed memory goes back to the system at once (mimalloc's
/// default is 1000). A build frees what one step made while the next step grows; held for the
/// delay, that memory stood under the later peaks: at 100 ms the pair of `benches/memory.sh`
/// peaked at 36 and 50 MB, at 10 ms the 64,000 games at 45-46, at 0 at 33 and 43
/// (benches/RESULTS.md, issue 41's twenty-first stop). Full builds take the same time; an append
/// to the 20,000-game crowd 0-5% more in alternated runs, the system time of giving memory back. mimalloc's
/// page settings (full pages retained, reclaim on free) changed no peak beyond the runs' spread
/// and are left as they are. `MIMALLOC_PURGE_DELAY`, when set, is left to mimalloc.
const PURGE_DELAY_MS: std::ffi::c_long = 0;

fn main() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of the allocator's options to a value it documents; no memory is
        // involved.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
    let cli = Cli::parse();
    let result = match cli.command {
        // The process ends right after the build: what it no longer needs is not freed.
        Command::Build(args) => exit(run_build(&BuildRequest {
            leftovers: Leftovers::Leave,
            ..request(args)
        })),
        Command::Watch(args) => fragstats::watch::watch(&request(args)),
        Command::Serve(args) => fragstats::watch::serve(&request(args.build), args.bind, args.port),
        Command::Evaluate(args) => evaluate(args),
        Command::Balance(args) => fragstats::balance::run(&args).map(|out| print!("{out}")),
        Command::Forget(args) => forget(args),
        Command::Export(args) => export(args),
        Command::Init { dir } => fragstats::init::init(&dir).map(|said| print!("{said}")),
    };
    exit(match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {}", one_line(&format!("{e:#}")));
            1
        }
    })
}

/// Ends the process with `code` once what was printed is flushed, without the allocator's
/// clean-up at exit: statically linked, mimalloc walks and releases every page it holds
/// (`mi_process_done`), about 0.12 s after a build of a public server's site (~1 GB), for
/// memory the system takes back at once anyway. Every file is written and closed, and every
/// thread joined, before this is called.
fn exit(code: u8) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process at once; nothing of this program needs the `atexit`
    // handlers it skips (output is flushed above; files are closed by the system).
    unsafe { libc::_exit(i32::from(code)) }
}
/// `fragstats evaluate`: reads the logs and prints how well each rating system predicts them.
fn evaluate(args: EvaluateArgs) -> anyhow::Result<()> {
    let req = BuildRequest {
        config: args.config,
        paths: args.paths,
        ..Default::default()
    };
    let plan = fragstats::build::Plan::new(&req)?;
    // Read as a build reads them, packed: not decoded again into a list of their own.
    let (history, _) = fragstats::build::read_history(&plan.roots)?;
    let matches = history.list();
    let aliases = fragstats::model::identity::Aliases::for_config(&plan.config);
    let roster = fragstats::model::identity::Roster::build(matches, &aliases);
    let evaluation =
        fragstats::rating::evaluation::evaluate_all(matches, &roster, &plan.config.rating, true);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&evaluation)?);
    } else {
        print!("{}", fragstats::rating::evaluation::table(&evaluation));
    }
    Ok(())
}

/// `fragstats export`: writes the history as Parquet tables and says what it wrote.
fn export(args: ExportArgs) -> anyhow::Result<()> {
    let fragstats::cli::ExportFormat::Parquet = args.format;
    let done = fragstats::export::export(&fragstats::export::ExportRequest {
        config: args.config,
        out: args.out,
        paths: args.paths,
    })?;
    eprint!("{}", done.diagnostics.summary());
    if let fragstats::fold::Replayed::Resumed(n) = done.replayed {
        eprintln!("ratings: resumed from the last build's checkpoint after match {n}");
    }
    for w in &done.warnings {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "exported {} matches, {} players, {} frags (suicides and team kills included) \
         as {} Parquet files",
        done.matches, done.players, done.frags, done.files
    );
    println!("{}", done.out.display());
    Ok(())
}

/// `fragstats forget`: removes archived matches and says which.
fn forget(args: ForgetArgs) -> anyhow::Result<()> {
    let req = BuildRequest {
        config: args.config,
        ..Default::default()
    };
    if args.path.is_none() && args.before.is_none() && !args.all {
        anyhow::bail!(
            "say which archived matches to forget: a log PATH, --before DATE, or --all for every one"
        );
    }
    let plan = fragstats::build::Plan::new(&req)?;
    let what = fragstats::archive::Forget {
        path: args.path,
        before: args.before,
    };
    let (removed, left) = fragstats::archive::forget_in(&plan.state_dir, &what)?;
    if removed.is_empty() {
        let total: usize = left.iter().map(|(_, n)| n).sum();
        println!("nothing removed: no archived match fits ({total} archived matches)");
        for (log, n) in &left {
            println!("  {n} archived matches read from {log}");
        }
    } else {
        for (log, n) in &removed {
            println!("removed {n} archived matches read from {log}");
        }
        let left: usize = left.iter().map(|(_, n)| n).sum();
        println!("{left} archived matches left; the next build leaves the removed ones out");
    }
    Ok(())
}

fn request(args: BuildArgs) -> BuildRequest {
    BuildRequest {
        config: args.config,
        out: args.out,
        paths: args.paths,
        strict: args.strict,
        full: args.full,
        leftovers: Leftovers::Free,
        checkpoint: Default::default(),
    }
}

fn run_build(req: &BuildRequest) -> u8 {
    match build(req) {
        Ok(built) => {
            eprint!("{}", built.diagnostics.summary());
            let c = built.counts;
            eprintln!(
                "logs: {} unchanged, {} read from their checkpoint, {} read whole ({} bytes parsed)",
                c.unchanged, c.resumed, c.whole, c.bytes
            );
            eprintln!("ratings: {}", built.replayed_line());
            if built.archived > 0 {
                eprintln!(
                    "archive: {} matches kept from logs that no longer hold them \
                     (`fragstats forget` removes them)",
                    built.archived
                );
            }
            for w in &built.warnings {
                eprintln!("warning: {w}");
            }
            eprintln!(
                "site of {} files ({} players, {} matches) in {}: {} written, {} unchanged",
                built.files,
                built.players,
                built.matches,
                built.out.display(),
                built.written,
                built.files - built.written
            );
            if built.matches == 0 {
                println!("{}", no_matches_hint(&built.roots));
            }
            println!("open {}", built.out.join("index.html").display());
            if req.strict && built.diagnostics.anything_skipped() {
                eprintln!("error: --strict: files or lines were skipped (listed above)");
                return 3;
            }
            0
        }
        Err(e) => {
            eprintln!("error: {}", one_line(&format!("{e:#}")));
            1
        }
    }
}

/// What to do when a build found no match: where the logs go, and which logs are read.
fn no_matches_hint(roots: &[std::path::PathBuf]) -> String {
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    format!(
        "no matches yet: put your game servers' log files in {} (folders are read recursively; \
         `logs` in site.toml names them), then build again. fragstats reads: {}.",
        if roots.is_empty() {
            "the folders of `logs` in site.toml".to_string()
        } else {
            roots.join(", ")
        },
        fragstats::parse::FORMATS.join("; ")
    )
}

/// Errors are printed on one line.
fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Option 15 of the mimalloc this builds is the purge delay: it and its neighbours hold
    /// mimalloc's own defaults (the eager commit delay 1, the purge delay 1000, the NUMA nodes
    /// 0, the OS tag 100). An upgrade that renumbered the options fails here rather than set
    /// another option to 0.
    #[test]
    fn option_15_is_the_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        for (option, default) in [(14, 1), (MI_OPTION_PURGE_DELAY, 1000), (16, 0), (18, 100)] {
            // SAFETY: reads one of the allocator's options.
            let value = unsafe { libmimalloc_sys::mi_option_get(option) };
            assert_eq!(value, default, "option {option}");
        }
    }
}
