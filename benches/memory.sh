#!/bin/sh
# Peak memory against the length of the history (issue 41): the same 30 players over 16,000
# and 64,000 synthetic games (`pair`: 16 and 64 logs of `gen_q3log.py 1000 SEED`, about 460 MB
# and 1.85 GB), over 200,000 (`mid`: 5.8 GB of logs, an 11 GB site), and by hand a server
# network's year (`big`: 704,000 games, the pair's 64 logs and ten copies of each under other
# server names: 19 GB of logs, a 2.8 GB state and a 34 GB site, about 60 GB of free disk and
# 25 minutes on 2 cores). For each: `fragstats build --full` into an empty site folder
# (no state), then again over the site and state it left (the previous state is loaded too),
# with wall time, processor time (user + system) and peak resident memory (GNU time's %M), and
# for the pair the growth of the peak from the first to the second. `one` builds the pair's
# 16,000 games once more as one log of 460 MB (a server that never rotates its games.log),
# into an empty site folder only.
#
#   sh benches/memory.sh [WORK_DIR] [pair|mid|big|one ...]   (default /tmp/fragstats-bench-memory, pair)
#   FRAGSTATS_BIN=/path/to/fragstats sh benches/memory.sh ...   (another build, e.g. older)
#   RUNS=3 sh benches/memory.sh ...   (pair and mid: each build 3 times, the growth from the
#                                      median peaks; a single run's peak moves by 5 MB or more)
#
# The logs are hard links into one folder of generated files, so the pair takes 1.85 GB of disk.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
gen="$repo/../shared/bench/gen_q3log.py"
work=${1:-/tmp/fragstats-bench-memory}
[ $# -gt 0 ] && shift
which=${*:-pair}
if [ -z "${FRAGSTATS_BIN:-}" ]; then
    cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
fi
bin=${FRAGSTATS_BIN:-$repo/target/release/fragstats}
RUNS=${RUNS:-1}
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)"; exit 1; }
mkdir -p "$work/generated"

# Makes generated/server-NNN.log for seeds 1..$1 (two at a time) once.
generate() {
    i=1
    while [ "$i" -le "$1" ]; do
        f=$(printf '%s/generated/server-%03d.log' "$work" "$i")
        if [ ! -s "$f.done" ]; then
            python3 "$gen" 1000 "$i" > "$f" && echo ok > "$f.done" &
            [ $((i % 2)) -eq 0 ] && wait
        fi
        i=$((i + 1))
    done
    wait
}

# A site folder $1 whose logs/ holds the first $2 generated logs, with no site nor state yet.
site() {
    rm -rf "$work/$1"
    mkdir -p "$work/$1/logs"
    i=1
    while [ "$i" -le "$2" ]; do
        ln "$(printf '%s/generated/server-%03d.log' "$work" "$i")" "$work/$1/logs/"
        i=$((i + 1))
    done
    echo 'logs = ["logs"]' > "$work/$1/site.toml"
}

# Runs `fragstats build --full` in site $1; prints "wall cpu peak_mb" (the peak to a tenth of a
# MB: whole MB cut off, 40.9 and 32.0 read as x1.25 where they are x1.28).
measure() {
    (cd "$work/$1" && /usr/bin/time -f "%e %U %S %M" -o ../.time "$bin" build --full >/dev/null 2>&1)
    awk '{ printf "%.2f %.2f %.1f\n", $1, $2 + $3, $4 / 1024 }' "$work/.time"
}

# The median of the numbers given (the middle one; of an even count, the lower middle).
median() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Builds site $1 of $2 logs from an empty site folder, then again over what it left, $RUNS
# times; prints each build's line and sets $peak to the larger of the two builds' median peaks
# (a single run's peak moves by 5 MB or more on a shared 2-core machine: two logs read side
# by side peak together or not).
run() {
    name=$1 logs=$2
    generate "$logs"
    empties="" agains=""
    # Not i: site() counts with it.
    k=1
    while [ "$k" -le "$RUNS" ]; do
        site "$name" "$logs"
        size=$(du -sh "$work/$name/logs" | cut -f1)
        first=$(measure "$name")
        again=$(measure "$name")
        echo "$first" | awk -v n="$name" -v l="$logs" -v s="$size" -v r="$k" '{ printf "%-6s %3d logs %6s  run %d  build --full, empty site: wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n", n, l, s, r, $1, $2, $3 }'
        echo "$again" | awk -v n="$name" -v r="$k" '{ printf "%-6s                  run %d  build --full, again:      wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n", n, r, $1, $2, $3 }'
        empties="$empties $(echo "$first" | cut -d' ' -f3)"
        agains="$agains $(echo "$again" | cut -d' ' -f3)"
        k=$((k + 1))
    done
    first=$(median $empties)
    again=$(median $agains)
    [ "$RUNS" -gt 1 ] && echo "$name median peaks of $RUNS runs: empty site $first MB, again $again MB"
    peak=$(echo "$first $again" | awk '{ print ($1 > $2 ? $1 : $2) }')
}

for what in $which; do
    case $what in
        pair)
            run p16 16
            small=$peak
            run p64 64
            echo "$small $peak" | awk '{ printf "peak of 64,000 games against 16,000: x%.2f (issue 41: at most x1.25, under 1024 MB)\n", $2 / $1 }'
            rm -rf "$work/p16" "$work/p64" ;;
        mid)
            run p200 200
            rm -rf "$work/p200" ;;
        big)
            # 704 logs: the pair's 64 generated logs, and 10 copies of each whose server names
            # (and so whose matches) differ (sed, minutes; generating 704 would take hours).
            generate 64
            rm -rf "$work/big"
            mkdir -p "$work/big/logs"
            i=1
            while [ "$i" -le 64 ]; do
                f=$(printf 'server-%03d.log' "$i")
                ln "$work/generated/$f" "$work/big/logs/"
                for k in 1 2 3 4 5 6 7 8 9 a; do
                    sed "s/sv_hostname\\\\bench/sv_hostname\\\\c${k}bench/" \
                        "$work/generated/$f" > "$work/big/logs/copy$k-$f"
                done
                i=$((i + 1))
            done
            echo 'logs = ["logs"]' > "$work/big/site.toml"
            size=$(du -sh "$work/big/logs" | cut -f1)
            set -- "$(measure big)" "$(measure big)"
            echo "$1" | awk -v s="$size" '{ printf "big    704 logs %6s  build --full, empty site: wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n", s, $1, $2, $3 }'
            echo "$2" | awk '{ printf "big                     build --full, again:      wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n", $1, $2, $3 }'
            echo "issue 41: under 2048 MB"
            rm -rf "$work/big" ;;
        one)
            # The pair's 16,000 games as one log of 460 MB, as a server that never rotates its
            # games.log writes them: what a single log holds while it is read.
            generate 16
            rm -rf "$work/one"
            mkdir -p "$work/one/logs"
            i=1
            while [ "$i" -le 16 ]; do
                cat "$(printf '%s/generated/server-%03d.log' "$work" "$i")"
                i=$((i + 1))
            done > "$work/one/logs/games.log"
            echo 'logs = ["logs"]' > "$work/one/site.toml"
            measure one | awk '{ printf "one      1 log    460M  build --full, empty site: wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n", $1, $2, $3 }'
            rm -rf "$work/one" ;;
        *) echo "unknown input $what (pair, mid, big or one)"; exit 1 ;;
    esac
done
