#!/bin/bash
# run every chunk in order, one server at a time: games/chunkNN/games.log
cd "${OGT_DIR:-.}"
for f in chunk*.tsv; do c=${f%.tsv}; [ -s games/$c/games.log ] && [ "$(grep -c ' Exit: ' games/$c/games.log)" -ge "$(wc -l < $f)" ] && continue
  date -u +"%T start $c"; ./play.sh games/$c $f 40 10; date -u +"%T end $c exits $(grep -c ' Exit: ' games/$c/games.log)"; done
