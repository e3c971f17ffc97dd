#!/bin/sh
# Every append of a checkpoint's cycle: after `fragstats build --full` (which writes the ratings
# checkpoint), one match is appended and the site built, again and again, until a build writes
# a new checkpoint (on the crowd, after about 70 appends: history/renewal.rs). Prints the
# plain appends' wall time (least, median, most) and the renewing append's wall and processor
# time: the figure issue 18's "append one match under 1 s" has to hold for every append.
# FRAGSTATS_TIMINGS=1 step timings of the last plain append, of the slowest one and of the
# renewing one go to SITE_DIR/timings-plain.txt, timings-slowest.txt and timings-renewal.txt.
#
#   sh benches/append_cycle.sh [SITE_DIR] [CROWD]
#       SITE_DIR  a site made by benches/build_speed.sh (default
#                 /tmp/fragstats-bench-speed/crowd; run `sh benches/build_speed.sh DIR crowd`
#                 first); its newest log grows by one match per build
#       CROWD     gen_q3log.py's crowd size for the appended matches (default 100000)
#   FRAGSTATS_BIN=/path/to/fragstats sh benches/append_cycle.sh ...   (another build)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
gen="$repo/../shared/bench/gen_q3log.py"
site=${1:-/tmp/fragstats-bench-speed/crowd}
crowd=${2:-100000}
if [ -z "${FRAGSTATS_BIN:-}" ]; then
    cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
fi
bin=${FRAGSTATS_BIN:-$repo/target/release/fragstats}
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)"; exit 1; }
[ -f "$site/site.toml" ] || { echo "no site at $site: run benches/build_speed.sh first"; exit 1; }
cd "$site"
checkpoint=.fragstats/ratings.bin
newest=logs/$(ls logs | tail -n 1)
"$bin" build --full > /dev/null 2>&1
# The checkpoint file as it is now: a renewal replaces it (another file, another time).
mark() { stat -c '%i %Y %s' "$checkpoint" 2>/dev/null || echo none; }
before=$(mark)
: > .cycle-times
n=0
while [ $n -lt 200 ]; do
    n=$((n + 1))
    # A match no earlier run appended (the seed changes with the log's size).
    python3 "$gen" 1 "$(stat -c %s "$newest")" "$crowd" >> "$newest"
    FRAGSTATS_TIMINGS=1 /usr/bin/time -f "%e %U %S" -o .cycle-time "$bin" build \
        > /dev/null 2> .cycle-timings
    if [ "$(mark)" != "$before" ]; then
        mv .cycle-timings timings-renewal.txt
        awk -v n=$n '{ printf "append %d renewed the checkpoint: wall %.2f s  cpu %.2f s\n",
            n, $1, $2 + $3 }' .cycle-time
        break
    fi
    wall=$(cut -d' ' -f1 .cycle-time)
    echo "$wall" >> .cycle-times
    if [ "$(sort -n .cycle-times | tail -n 1)" = "$wall" ]; then
        cp .cycle-timings timings-slowest.txt
    fi
    mv .cycle-timings timings-plain.txt
done
sort -n .cycle-times | awk '{ t[NR] = $1 } END {
    if (NR == 0) exit
    printf "%d plain appends: wall least %.2f s  median %.2f s  most %.2f s\n",
        NR, t[1], t[int((NR + 1) / 2)], t[NR] }'
