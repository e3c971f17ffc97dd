#!/bin/sh
# The cost of the heatmaps (issue 42: at most 10% of a build) on Half-Life logs with positions,
# built with `--full` by the binary before the heatmaps and by this one, RUNS rounds of 5 builds
# each in turn; prints the total processor (user + system) and wall time of each, and the ratios.
# The logs: `benches/gen_hllog.py MAPS 3 GAMES` (CS:GO-style maps with `[x y z]` after each
# player block, TF2-style ones with attacker_position/victim_position: positions spread evenly,
# the worst case for the panels' size), or LOGS, a folder of real logs.
#
#   FRAGSTATS_BEFORE=/path/to/older/fragstats sh benches/heatmaps.sh [MAPS|LOGS] [GAMES] [RUNS]
#                                                   (default 400 mixed 8; GAMES: mixed, cs, tf)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
maps=${1:-400}
games=${2:-mixed}
runs=${3:-8}
before=${FRAGSTATS_BEFORE:?set FRAGSTATS_BEFORE to a fragstats built before the heatmaps}
cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
after=$repo/target/release/fragstats
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # an empty folder: no site.toml of anyone else's
if [ -e "$maps" ]; then
    input=$(cd "$maps" 2>/dev/null && pwd || echo "$maps")
else
    python3 "$repo/benches/gen_hllog.py" "$maps" 3 "$games" > "$work/hl.log"
    input=$work/hl.log
fi
echo "input: $(du -sh "$input" | cut -f1) ($input)"
for i in $(seq "$runs"); do
    for which in before after; do
        bin=$before; [ "$which" = after ] && bin=$after
        # Fresh output folders: removing the last round's is not timed.
        rm -rf "$work/$which"; mkdir "$work/$which"
        /usr/bin/time -f "%U %S %e" -o "$work/t" sh -c "for k in 1 2 3 4 5; do '$bin' build --full --out '$work/$which/'\$k '$input' >/dev/null 2>&1; done"
        read -r user sys wall < "$work/t"
        echo "$which $(echo "$user + $sys" | bc) $wall" >> "$work/all"
    done
done
total() { grep "^$1 " "$work/all" | awk "{s += \$$2} END {printf \"%.2f\", s}"; }
for col in 2 3; do
    b=$(total before $col); a=$(total after $col)
    name=cpu; [ $col = 3 ] && name=wall
    echo "$name of $((runs * 5)) builds: before $b s, after $a s, after/before $(echo "scale=3; $a / $b" | bc)"
done
echo "files of one site: before $(find "$work/before/1" -type f | wc -l), after $(find "$work/after/1" -type f | wc -l)"
