#!/bin/sh
# Whether two builds of fragstats make the same sites: every log set of ../shared/data (the
# OpenArena bot logs and each public set) built by both binaries in fresh folders, five ways:
#   full         `build --full` of the whole logs
#   again        `build` once more over that site (everything unchanged)
#   grown        `build` of the first half of each log's bytes, then of the whole logs
#   grown-full   `build --full` over the grown site
#   export       `export --format parquet` of the site
# and each site compared byte for byte (`diff -r` of public/), each export file by file. The
# state folders are not compared: their format is each build's own. Used to show that a change
# of how the history is held changes no published byte (issue 41).
#
#   sh benches/same_site.sh OLD_BINARY NEW_BINARY [WORK_DIR]   (default /tmp/fragstats-same-site)
#
# Prints one line per set and way; exits 1 when any differs.
set -eu
[ $# -ge 2 ] || { echo "usage: sh benches/same_site.sh OLD_BINARY NEW_BINARY [WORK_DIR]"; exit 2; }
old=$(realpath "$1")
new=$(realpath "$2")
work=${3:-/tmp/fragstats-same-site}
shared=$(cd "$(dirname "$0")/../../shared/data" && pwd)
rm -rf "$work"
mkdir -p "$work"
differ=0

# Prints "SET WAY identical|DIFFERS" for the sites (or exports) $3 and $4.
verdict() {
    if diff -r --no-dereference "$3" "$4" >/dev/null 2>&1; then
        echo "$1 $2 identical"
    else
        echo "$1 $2 DIFFERS"
        differ=1
    fi
}

# Copies the logs of set $1 into $2/logs (with $3 = half, the first half of each file's bytes;
# a compressed log whole).
copy_logs() {
    mkdir -p "$2/logs"
    echo 'logs = ["logs"]' > "$2/site.toml"
    (cd "$1" && find . -type f ! -name '*.md') | while read -r f; do
        mkdir -p "$2/logs/$(dirname "$f")"
        case "$f" in *.gz) whole=yes ;; *) whole=no ;; esac
        if [ "${3:-}" = half ] && [ $whole = no ]; then
            head -c $(($(stat -c %s "$1/$f") / 2)) "$1/$f" > "$2/logs/$f"
        else
            cp "$1/$f" "$2/logs/$f"
        fi
    done
}

for set in "$shared/openarena" "$shared"/public/*/; do
    name=$(basename "$set")
    for side in old new; do
        bin=$([ $side = old ] && echo "$old" || echo "$new")
        d="$work/$side/$name"
        copy_logs "$set" "$d"
        (cd "$d" && "$bin" build --full >/dev/null 2>&1 && cp -r public public-full \
            && "$bin" build >/dev/null 2>&1)
        g="$work/$side/$name-grown"
        copy_logs "$set" "$g" half
        (cd "$g" && "$bin" build >/dev/null 2>&1)
        copy_logs "$set" "$g"
        (cd "$g" && "$bin" build >/dev/null 2>&1 && cp -r public public-grown \
            && "$bin" build --full >/dev/null 2>&1)
        (cd "$d" && "$bin" export --format parquet --out "$work/$side/$name.parquet" \
            >/dev/null 2>&1)
    done
    o="$work/old/$name" n="$work/new/$name"
    verdict "$name" full "$o/public-full" "$n/public-full"
    verdict "$name" again "$o/public" "$n/public"
    verdict "$name" grown "$o-grown/public-grown" "$n-grown/public-grown"
    verdict "$name" grown-full "$o-grown/public" "$n-grown/public"
    verdict "$name" export "$work/old/$name.parquet" "$work/new/$name.parquet"
done
exit $differ
