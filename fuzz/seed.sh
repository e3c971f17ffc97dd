#!/usr/bin/env bash
# Seeds the fuzz corpora with the real logs in ../shared/data, cut into pieces of at most 64 KiB
# (libFuzzer works best on small inputs), plus the sample logs.
set -euo pipefail
cd "$(dirname "$0")"
for target in q3_parser hl_parser cod_parser et_parser build_pipeline; do
  mkdir -p "corpus/$target"
  for f in ../../shared/data/openarena/*/*.log ../../shared/data/public/*/*.log ../sample-logs/*.log; do
    [ -f "$f" ] || continue
    base=$(basename "$f" .log)
    split -b 65536 -d -a 3 "$f" "corpus/$target/$base-"
  done
done
# ET game logs (g_log) put a level-time stamp before each line: the console log in both forms.
for f in ../../shared/data/public/et/*.log; do
  [ -f "$f" ] || continue
  base=$(basename "$f" .log)
  sed 's/^/  1:23 /' "$f" | split -b 65536 -d -a 3 - "corpus/et_parser/$base-glog-"
  sed 's/^/ 9509300 /' "$f" | split -b 65536 -d -a 3 - "corpus/et_parser/$base-glogms-"
done
echo "seeded: $(ls corpus/q3_parser | wc -l) inputs per target"
