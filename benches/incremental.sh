#!/bin/sh
# Incremental build on a ~1 GB archive: 35 synthetic Quake 3 logs of 1000 matches each
# (../shared/bench/gen_q3log.py), one full build, then three rounds of "append one new match to
# the newest log and build again", each timed with the step timings of FRAGSTATS_TIMINGS=1.
#
#   sh benches/incremental.sh [WORK_DIR]     (default /tmp/fragstats-bench-1g; ~2 GB of disk)
#
# The archive is generated once and kept in WORK_DIR; later runs reuse it.
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
start=$(date +%s.%N)
"$bin" build --full > /dev/null 2>&1
echo "full build: $(since "$start") s"
for round in 1 2 3; do
    # A match no earlier round appended (the seed changes with the log's size).
    python3 "$gen" 1 "$(stat -c %s logs/server-35.log)" >> logs/server-35.log
    start=$(date +%s.%N)
    FRAGSTATS_TIMINGS=1 "$bin" build 2>&1 | grep -E '^(timing|ratings|logs|site of)'
    echo "append one match, round $round: $(since "$start") s"
done
