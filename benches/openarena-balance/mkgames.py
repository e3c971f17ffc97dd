#!/usr/bin/env python3
"""design.json -> games.tsv (one line per game, lobby-interleaved, arm order rotated) + chunk files."""
import json
d = json.load(open('design.json')); B = d['bots']
ARMS = ['fragstats', 'abba', 'random']
lines = []
for l in d['lobbies']:
    i = l['lobby']
    for r in range(3):
        arm = ARMS[(i + r) % 3]; a = l['arms'][arm]
        bots = [f'addbot {B[n]["char"]} {B[n]["skill"]} {t} 0 "{B[n]["raw"]}"' for t in ('red', 'blue') for n in a[t]]
        lines.append(f"L{i:02d}-{arm}\t{l['map']}\t{'|'.join(bots)}")
open('games.tsv', 'w').write('\n'.join(lines) + '\n')
CH = 18
for c in range(0, len(lines), CH):
    open(f'chunk{c // CH:02d}.tsv', 'w').write('\n'.join(lines[c:c + CH]) + '\n')
print(len(lines), 'games')
