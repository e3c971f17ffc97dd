#!/bin/sh
# Page weight on a public-server crowd (issue 18): builds the site of
# `../shared/bench/gen_q3log.py GAMES 5 PLAYERS` (default 20000 games, 100,000 names: ~619 MB,
# ~63,000 players) and lists every output file over 2 MB, then every page whose bytes plus the
# scripts and stylesheets it loads exceed 2 MB, and what a search loads (data/search.js and the
# largest shard).
#
#   sh benches/page_sizes.sh [WORK_DIR [GAMES [PLAYERS]]]   (default /tmp/fragstats-bench-crowd)
#
# The log is generated once and kept in WORK_DIR; later runs reuse it.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/fragstats-bench-crowd}
games=${2:-20000}
players=${3:-100000}
cargo build --release --manifest-path "$repo/Cargo.toml" >/dev/null
mkdir -p "$work"
cd "$work"
log="crowd-$games-$players.log"
[ -f "$log" ] || python3 "$repo/../shared/bench/gen_q3log.py" "$games" 5 "$players" > "$log"
"$repo/target/release/fragstats" build --full --out public "$log" | tail -2
echo "files over 2 MB:"
find public -type f -size +2M -printf '  %s\t%P\n' | sort -rn
python3 - <<'PY'
import os, re
limit = 2 << 20
heavy, largest = [], (0, "")
for folder, _, files in os.walk("public"):
    for name in files:
        if not name.endswith(".html"):
            continue
        page = os.path.join(folder, name)
        text = open(page, encoding="utf-8").read()
        assets = set(re.findall(r'<script[^>]*\bsrc="([^"]+)"', text))
        assets |= set(re.findall(r'<link[^>]*stylesheet[^>]*\bhref="([^"]+)"', text))
        total = len(text.encode()) + sum(
            os.path.getsize(os.path.join(folder, a)) for a in assets
            if os.path.exists(os.path.join(folder, a)))
        if total > largest[0]:
            largest = (total, page)
        if total > limit:
            heavy.append((total, page))
print("pages loading over 2 MB with their scripts and stylesheets:")
for total, page in sorted(heavy, reverse=True):
    print(f"  {total}\t{page}")
print(f"heaviest page: {largest[1]} ({largest[0]} bytes)")
shards = "public/data/search"
if os.path.isdir(shards):
    sizes = [os.path.getsize(os.path.join(shards, f)) for f in os.listdir(shards)]
    print(f"search: data/search.js {os.path.getsize('public/data/search.js')} bytes, "
          f"{len(sizes)} shards, largest {max(sizes)} bytes")
PY
