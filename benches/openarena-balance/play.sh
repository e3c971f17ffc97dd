#!/bin/bash
# play.sh OUTDIR GAMES_TSV [TS] [TIMELIMIT]
# GAMES_TSV lines: id<TAB>map<TAB>addbot-lines separated by '|'  (one game per line, played in order)
# Runs ONE real OpenArena dedicated server (bound to 127.0.0.1, no masters, dedicated 1) under nice -n $NICE (19),
# each game = its own cfg (g_gametype 3, devmap MAP, addbots, timescale), chained by nextmap;
# server is stopped with SIGTERM after as many "Exit:" lines as games (and killed on any exit path).
set -u
OUT=$1; TSV=$2; TS=${3:-40}; TL=${4:-10}
mkdir -p "$OUT"; h=$(mktemp -d "$PWD/srv.XXXX"); mkdir -p "$h/baseoa"
n=0; ids=()
while IFS=$'\t' read -r id map bots; do ids+=("$id"); done < "$TSV"
N=${#ids[@]}; k=0
while IFS=$'\t' read -r id map bots; do k=$((k+1)); nxt=$(( k % N + 1 ))
  { echo "set g_gametype 3"; echo "devmap $map"; echo "$bots" | tr '|' '\n'
    echo "set timescale $TS"; echo "set nextmap \"exec g$nxt.cfg\""; } > "$h/baseoa/g$k.cfg"
done < "$TSV"
cat > "$h/baseoa/gen.cfg" <<CFG
set g_log games.log
set g_logsync 1
set sv_hostname "Bot Arena"
set sv_maxclients 16
set bot_enable 1
set bot_minplayers 0
set g_doWarmup 0
set sv_fps 1000
set fraglimit 0
set timelimit $TL
set g_teamForceBalance 0
set g_teamAutoJoin 0
exec g1.cfg
CFG
pid=
cleanup() { [ -n "$pid" ] && kill -TERM $pid 2>/dev/null && sleep 1 && kill -KILL $pid 2>/dev/null; cp "$h/baseoa/games.log" "$OUT/games.log" 2>/dev/null; cp "$h/console.log" "$OUT/console.log" 2>/dev/null; cp -r "$h/baseoa/"g*.cfg "$OUT/" 2>/dev/null; }
trap cleanup EXIT; trap 'exit 1' INT TERM
( cd "$h" && exec nice -n "${NICE:-19}" /usr/games/openarena-server +set dedicated 1 +set net_ip 127.0.0.1 +set net_enabled 1 \
    +set net_port 27971 +set sv_master1 "" +set sv_master2 "" +set sv_master3 "" +set sv_master4 "" \
    +set sv_master5 "" +set fs_homepath "$h" +set ttycon 0 +exec gen.cfg < /dev/null > "$h/console.log" 2>&1 ) &
pid=$!; echo "server pid $pid dir $h games $N"; echo $pid > "$OUT/server.pid"
while kill -0 $pid 2>/dev/null; do sleep 0.5
  e=$(grep -c ' Exit: ' "$h/baseoa/games.log" 2>/dev/null); e=${e:-0}
  if [ "$e" -ge "$N" ]; then sleep 1; kill -TERM $pid; wait $pid; pid=; break; fi
done
