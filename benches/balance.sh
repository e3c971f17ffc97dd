#!/bin/sh
# `fragstats balance` timings on a site with 60,000 players: builds a site from
# ../shared/data/openarena, replaces its data/balance.js by one with 60,000 players (the built
# model's parameters, random skills and names), then times the whole command (reading the file,
# matching the names, searching; wall-clock and processor time, the figure to compare on a
# shared machine) for 10, 24 (every split), 40 (meet in the middle, exact) and 44 (local search) players,
# median of 5; with clans off, then together (four clans of three in each lobby).
#
#   sh benches/balance.sh [WORK_DIR]     (default /tmp/fragstats-bench-balance)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/fragstats-bench-balance}
cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
bin="$repo/target/release/fragstats"
mkdir -p "$work"
"$bin" build --out "$work/site" "$repo/../shared/data/openarena" >/dev/null 2>&1
python3 - "$work/site/data/balance.js" <<'PY'
import json, random, sys
path = sys.argv[1]
prefix = "window.FRAGSTATS_BALANCE = "
data = json.loads(open(path).read().strip()[len(prefix):-1])
random.seed(1)
data["players"] = [{"name": "Player%d" % i, "names": ["P%dx" % i], "skill": random.gauss(0, 1),
                    "variance": random.uniform(0.01, 1)} for i in range(60000)]
# Four clans of three among the first twelve names of every lobby below (for --clans together).
for i in range(12):
    data["players"][i * 1237 % 60000]["clan"] = "Clan%d" % (i // 3)
open(path, "w").write(prefix + json.dumps(data) + ";\n")
PY
for clans in off together; do
for n in 10 24 40 44; do
    names=$(python3 -c "print(' '.join('Player%d' % (i * 1237 % 60000) for i in range($n)))")
    python3 - "$bin" "$work/site" "$n" "$clans" $names <<'PY'
import subprocess, sys, time, json, resource
bin, out, n, clans, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
runs, cpu = [], []
def used():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
for _ in range(5):
    t, c = time.perf_counter(), used()
    o = subprocess.run([bin, "balance", "--out", out, "--json", "--clans", clans, *names], capture_output=True, check=True)
    runs.append(time.perf_counter() - t)
    cpu.append(used() - c)
v = json.loads(o.stdout)
print("%s players, clans %s: %.0f ms wall, %.0f ms processor (medians of 5, whole command), exact=%s, p=%.4f"
      % (n, clans, sorted(runs)[2] * 1000, sorted(cpu)[2] * 1000, v["exact"], v["p_red_wins"]))
PY
done
done
