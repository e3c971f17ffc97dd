#!/bin/sh
# Build speed on the three inputs of issue 18, each measured beside `grep -c Kill:` over the same
# files in the same run (the machine may be shared: the ratios and the processor times are the
# figures to compare, not the wall times alone):
#   small    gen_q3log.py 1000 3                 (28.9 MB, 30 players: a clan's "small site")
#   crowd    gen_q3log.py 20000 5 100000         (619 MB, 63,319 players: a public server)
#   archive  35 x gen_q3log.py 1000 SEED          (966 MB, as benches/incremental.sh makes it)
# For each: `fragstats build --full` into a site that already exists (so write-if-changed
# compares every page), then, for the two big ones, "append one match and rebuild". Each line
# gives wall time, processor time (user + system, all threads), peak memory and (big inputs) the
# ratios to grep; FRAGSTATS_TIMINGS=1 step timings go to WORK_DIR/<name>/timings*.txt.
#
#   sh benches/build_speed.sh [WORK_DIR] [small|crowd|archive ...]
#                                   (default /tmp/fragstats-bench-speed, all three; ~4 GB of disk)
#   FRAGSTATS_BIN=/path/to/fragstats sh benches/build_speed.sh ...   (another build, e.g. older)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
gen="$repo/../shared/bench/gen_q3log.py"
work=${1:-/tmp/fragstats-bench-speed}
[ $# -gt 0 ] && shift
which=${*:-small crowd archive}
if [ -z "${FRAGSTATS_BIN:-}" ]; then
    cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
fi
bin=${FRAGSTATS_BIN:-$repo/target/release/fragstats}
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)"; exit 1; }

# Runs a command (its stderr to $log); prints "wall cpu peak_kb" (seconds, seconds, KB).
measure() {
    /usr/bin/time -f "%e %U %S %M" -o "$work/.time" "$@" >/dev/null 2>"$log"
    awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$work/.time"
}

# Writes the logs of input $1 into $work/$1/logs once.
generate() {
    dir="$work/$1"
    [ -f "$dir/gen.done" ] && return
    mkdir -p "$dir/logs"
    case $1 in
        small) python3 "$gen" 1000 3 > "$dir/logs/q3.log" ;;
        crowd) python3 "$gen" 20000 5 100000 > "$dir/logs/crowd.log" ;;
        archive)
            for i in $(seq -w 1 35); do
                python3 "$gen" 1000 "$i" > "$dir/logs/server-$i.log"
            done ;;
    esac
    echo 'logs = ["logs"]' > "$dir/site.toml"
    touch "$dir/gen.done"
}

line() {
    # name, what, build "wall cpu kb", grep "wall cpu kb"
    set -- "$1" "$2" $3 $4
    awk -v n="$1" -v w="$2" -v bw="$3" -v bc="$4" -v bm="$5" -v gw="${6:-}" -v gc="${7:-}" 'BEGIN {
        printf "%-8s %-22s wall %7.2f s  cpu %7.2f s  peak %5d MB", n, w, bw, bc, bm / 1024
        if (gw != "") printf "  | grep wall %.2f s cpu %.2f s: x%.1f wall, x%.1f cpu", gw, gc, bw / gw, bc / (gc > 0 ? gc : 0.01)
        printf "\n" }'
}

mkdir -p "$work"
for name in $which; do
    generate "$name"
    cd "$work/$name"
    echo "$name: $(du -sh logs | cut -f1) in $(ls logs | wc -l) log(s)"
    # Warm the page cache, and a first build so that the timed one finds a site to compare.
    cat logs/* > /dev/null
    [ -d public ] || "$bin" build --full > /dev/null 2>&1
    log=/dev/null
    # grep reads the small log in a hundredth of a second: no ratio there (the target is 0.25 s).
    g=""
    [ "$name" != small ] && g=$(measure sh -c 'grep -c Kill: logs/* > .grep-count')
    log=timings.txt
    b=$(FRAGSTATS_TIMINGS=1 measure "$bin" build --full)
    line "$name" "build --full" "$b" "$g"
    if [ "$name" != small ]; then
        newest=$(ls logs | tail -n 1)
        crowd=$([ "$name" = crowd ] && echo 100000 || echo 0)
        # A match no earlier run appended (the seed changes with the log's size).
        python3 "$gen" 1 "$(stat -c %s "logs/$newest")" "$crowd" >> "logs/$newest"
        log=timings-append.txt
        b=$(FRAGSTATS_TIMINGS=1 measure "$bin" build)
        line "$name" "append 1 match, build" "$b" ""
    fi
done
