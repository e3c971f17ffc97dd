#!/bin/sh
# The cost of the heatmaps (issue 42: at most 10% of a build) on Half-Life logs with positions:
# `benches/gen_hllog.py MAPS 3 GAMES` (CS:GO-style maps with `[x y z]` after each player block,
# TF2-style ones with attacker_position/victim_position), built with `--full` by the binary
# before the heatmaps and by this one, RUNS times each in turn; prints each run's wall and
# processor time and the medians' ratio.
#
#   FRAGSTATS_BEFORE=/path/to/older/fragstats sh benches/heatmaps.sh [MAPS] [GAMES] [RUNS]
#                                                   (default 400 mixed 5; GAMES: mixed, cs, tf)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
maps=${1:-400}
games=${2:-mixed}
runs=${3:-5}
before=${FRAGSTATS_BEFORE:?set FRAGSTATS_BEFORE to a fragstats built before the heatmaps}
cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
after=$repo/target/release/fragstats
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # an empty folder: no site.toml of anyone else's
python3 "$repo/benches/gen_hllog.py" "$maps" 3 "$games" > "$work/hl.log"
echo "input: $(du -h "$work/hl.log" | cut -f1) ($maps maps, $games)"
for i in $(seq "$runs"); do
    for which in before after; do
        bin=$before; [ "$which" = after ] && bin=$after
        rm -rf "$work/$which"
        /usr/bin/time -f "%e %U %S" -o "$work/t" "$bin" build --full --out "$work/$which/site" "$work/hl.log" >/dev/null 2>&1
        read -r wall user sys < "$work/t"
        echo "$which $wall $(echo "$user + $sys" | bc)" | tee -a "$work/all"
    done
done
median() { grep "^$1 " "$work/all" | awk "{print \$$2}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for col in 2 3; do
    b=$(median before $col); a=$(median after $col)
    name=wall; [ $col = 3 ] && name=cpu
    echo "median $name: before $b s, after $a s, after/before $(echo "scale=3; $a / $b" | bc)"
done
echo "heatmap files: $(find "$work/after/site" -name '*.svg' -path '*-heat*' -o -name '*-kills.svg' | wc -l)"
