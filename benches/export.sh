#!/bin/sh
# `fragstats export --format parquet` of the ~1 GB archive (35 synthetic Quake 3 logs of 1000
# matches each, ../shared/bench/gen_q3log.py, made as benches/incremental.sh makes them):
#   1. cold: no state folder, so every log is parsed and every match counted and rated;
#   2. after a build: the build's stored matches and checkpoint of the ratings are reused.
# Each line gives the wall time; with GNU time installed, also the peak memory.
#
#   sh benches/export.sh [WORK_DIR]     (default /tmp/fragstats-bench-1g; ~2.5 GB of disk)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
gen="$repo/../shared/bench/gen_q3log.py"
work=${1:-/tmp/fragstats-bench-1g}
cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
bin="$repo/target/release/fragstats"
since() { python3 -c "print(round($(date +%s.%N) - $1, 2))"; }
mkdir -p "$work/logs"
cd "$work"
if [ ! -f gen.done ]; then
    for i in $(seq -w 1 35); do
        python3 "$gen" 1000 "$i" > "logs/server-$i.log"
    done
    echo 'logs = ["logs"]' > site.toml
    touch gen.done
fi
echo "archive: $(du -sh logs | cut -f1) in $(ls logs | wc -l) logs"
timed() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "  (peak memory %M KB)" "$@" 2>&1 >/dev/null | grep -E '^(exported|  \(peak)'
    else
        "$@" 2>&1 >/dev/null | grep '^exported'
    fi
}
# Cold: run from an empty folder (no site.toml, no state) with the logs as a path.
mkdir -p cold
start=$(date +%s.%N)
(cd cold && timed "$bin" export --format parquet --out ../export-cold ../logs)
echo "export, cold (parse + rate + write): $(since "$start") s"
"$bin" build >/dev/null 2>&1
start=$(date +%s.%N)
timed "$bin" export --format parquet --out export
echo "export after a build (stored matches and checkpoint reused): $(since "$start") s"
du -sh export | sed 's/^/parquet: /'
