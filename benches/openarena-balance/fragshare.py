#!/usr/bin/env python3
"""Which team strength predicts the share of frags a team makes?  Per played game, red's share of the frags between
the teams (Kill lines, killer and victim on different teams) against two predictions from site/data/balance.js:
  mean      sigma(mean theta red - mean theta blue)        (what src/evaluate/team.rs uses as the frag edge)
  pairwise  mean over red-blue pairs of sigma(theta_r - theta_b)
Usage: python3 fragshare.py  (in a working folder: site/, chunk*.tsv and games/chunkNN/games.log; the teams are
read from the log itself, so every game of every chunk counts, superseded or not)."""
import json, math, re, sys, glob, statistics as st

strip = lambda s: re.sub(r'\^.', '', s)
text = open('site/data/balance.js').read()
theta = {strip(p['name']): p['skill'] for p in json.loads(text[text.index('{'):text.rindex('}') + 1])['players']}
sig = lambda x: 1 / (1 + math.exp(-x))


def shares(path):
    """Per game in the log: (red names, blue names, red's frags on blue, blue's frags on red)."""
    out, team, cur = [], {}, None
    for line in open(path, errors='replace'):
        m = re.match(r'\s*\d+:\d+ (\w+):(.*)', line)
        if not m: continue
        ev, rest = m.groups()
        if ev == 'InitGame': team = {}; cur = [0, 0]; out.append((team, cur))
        elif cur is None: continue
        elif ev == 'ClientUserinfoChanged':
            cid, info = rest.strip().split(' ', 1); f = info.split('\\'); kv = dict(zip(f[0::2], f[1::2]))
            nm = strip(kv['n']); team[cid] = ('|RB|Headcrash' if nm == 'Headcrash' else nm, kv['t'])
        elif ev == 'Kill':
            k, v = rest.split(':')[0].split()[:2]
            if k in team and v in team and team[k][1] != team[v][1]:
                cur[0 if team[k][1] == '1' else 1] += 1
    return [(sorted(n for n, t in tm.values() if t == '1'), sorted(n for n, t in tm.values() if t == '2'), c) for tm, c in out]


rows = []
for tsv in sorted(glob.glob('chunk*.tsv')):
    ids = [l.split('\t')[0] for l in open(tsv).read().splitlines()]
    try: games = shares(tsv.replace('.tsv', '').join(['games/', '/games.log']))
    except FileNotFoundError: continue
    for gid, (red, blue, (r, b)) in zip(ids, games):
        if r + b == 0 or not red or not blue: continue
        mean = sig(st.mean(theta[n] for n in red) - st.mean(theta[n] for n in blue))
        pair = st.mean(sig(theta[x] - theta[y]) for x in red for y in blue)
        rows.append((gid, r / (r + b), r + b, mean, pair, 'Penguin' in red + blue))
print(f"games {len(rows)}, frags between the teams per game mean {st.mean(x[2] for x in rows):.1f}")
for name, sel in (('all', lambda x: True), ('with Penguin', lambda x: x[5]), ('without Penguin', lambda x: not x[5])):
    s = [x for x in rows if sel(x)]
    for label, k in (('mean', 3), ('pairwise', 4)):
        err = [x[1] - x[k] for x in s]
        print(f"  {name:15s} n {len(s):3d} {label:8s}: RMSE of red's frag share {math.sqrt(st.mean(e * e for e in err)):.4f}"
              f"  mean error (observed - predicted) {st.mean(err):+.4f}  corr {st.correlation([x[1] for x in s], [x[k] for x in s]):.3f}")
