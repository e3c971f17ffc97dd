#!/bin/sh
# What seasons cost: synthetic Quake 3 logs (../shared/bench/gen_q3log.py) given OpenArena's
# `g_timestamp` dates (one match every 3 hours, so GAMES matches span GAMES/8 days), built in
# full without seasons, with `every = "month"`, and with `every = "month"` and `carry = 0.5`,
# at GAMES and twice GAMES matches (the season step should double, the rest be unchanged).
#
#   sh benches/seasons.sh [GAMES] [WORK_DIR]     (default 2000, /tmp/fragstats-bench-seasons)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
gen="$repo/../shared/bench/gen_q3log.py"
games=${1:-2000}
work=${2:-/tmp/fragstats-bench-seasons}
cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
bin="$repo/target/release/fragstats"
mkdir -p "$work"
cd "$work"
for n in "$games" $((games * 2)); do
    mkdir -p "logs-$n"
    if [ ! -f "logs-$n/games.log" ]; then
        python3 "$gen" "$n" 11 | awk '
            /InitGame: / { d = 1700000000 + 10800 * k++;
                           $0 = $0 "\\g_timestamp\\" strftime("%Y-%m-%d %H:%M:%S", d, 1) }
            { print }' > "logs-$n/games.log"
    fi
    for seasons in "" 'every = "month"' 'every = "month"
carry = 0.5'; do
        printf 'logs = ["logs-%s"]\noutput = "public-%s"\nstate = ".state-%s"\n[seasons]\n%s\n' \
            "$n" "$n" "$n" "$seasons" > site.toml
        echo "== $n matches, [seasons] $(echo "$seasons" | tr '\n' ' ')"
        FRAGSTATS_TIMINGS=1 "$bin" build --full 2>&1 \
            | grep -E '(counts and ratings|seasons|rate and render|total)|^site of' || true
    done
done
