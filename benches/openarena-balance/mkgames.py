#!/usr/bin/env python3
"""design.json -> games.tsv (one line per game, lobby-interleaved, arm order rotated) + chunk files.
Usage: python3 mkgames.py                      every game of design.json: games.tsv, chunk00.tsv, chunk01.tsv, ...
       python3 mkgames.py OLD_DESIGN FIRST     only the games whose split (the partition into two teams) differs
                                               from OLD_DESIGN's for the same lobby and arm, as played (red, blue)
                                               (OLD_DESIGN may be several paths joined by ':', the split must
                                               differ from all of them): changed.tsv and chunk
                                               files numbered from FIRST (e.g. 12 after chunk00..11), so the old
                                               chunks' games of the unchanged splits are reused by analyze.py."""
import json, sys
d = json.load(open('design.json')); B = d['bots']
ARMS = ['fragstats', 'abba', 'random']
old = [{l['lobby']: l for l in json.load(open(p))['lobbies']} for p in sys.argv[1].split(':')] if len(sys.argv) > 1 else None
first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
split = lambda a: (frozenset(a['red']), frozenset(a['blue']))  # as played: red, blue
lines = []
for l in d['lobbies']:
    i = l['lobby']
    for o in old or []:
        assert o[i]['names'] == l['names'] and o[i]['map'] == l['map'], f'lobby {i} differs from an old design'
    for r in range(3):
        arm = ARMS[(i + r) % 3]; a = l['arms'][arm]
        if old is not None and any(split(o[i]['arms'][arm]) == split(a) for o in old): continue
        bots = [f'addbot {B[n]["char"]} {B[n]["skill"]} {t} 0 "{B[n]["raw"]}"' for t in ('red', 'blue') for n in a[t]]
        lines.append(f"L{i:02d}-{arm}\t{l['map']}\t{'|'.join(bots)}")
open('games.tsv' if old is None else 'changed.tsv', 'w').write('\n'.join(lines) + '\n')
CH = 18
for c in range(0, len(lines), CH):
    open(f'chunk{first + c // CH:02d}.tsv', 'w').write('\n'.join(lines[c:c + CH]) + '\n')
print(len(lines), 'games')
