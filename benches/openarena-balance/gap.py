#!/usr/bin/env python3
"""Usage: python3 gap.py DIR [DIR2]   (DESIGN=/tmp/ogt/design.json by default: the design the 216 games were played from)
In DIR: a fragstats binary, site.toml (output = "site") and repredict.json (repredict.py's output). Runs DIR/fragstats balance
--json on each of the 72 lobbies of DESIGN (in DIR,
site.toml -> site/) and print the mean true-skill gap |sum skill red - sum skill blue| of its split, with ABBA's
(the binary's abba), the best possible and the design's random arm; with DIR2, the paired difference and its se;
plus paired log-loss of the 216 real games (DIR/repredict.json p_new)."""
import json, subprocess, sys, statistics as st, math, os
design = json.load(open(os.environ.get('DESIGN', '/tmp/ogt/design.json')))
true = lambda t: sum(design['bots'][n]['skill'] for n in t)
def run(d):
    gaps, abba = [], []
    for l in design['lobbies']:
        j = json.loads(subprocess.run(['./fragstats', 'balance', '--config', 'site.toml', '--json'] + l['names'],
                                      cwd=d, capture_output=True, text=True, check=True).stdout)
        gaps.append(abs(true(j['red']) - true(j['blue']))); abba.append(abs(true(j['abba']['red']) - true(j['abba']['blue'])))
    return gaps, abba
res = [run(d) for d in sys.argv[1:]]
best = [l['best_abs_gap'] for l in design['lobbies']]
rnd = [abs(l['arms']['random']['gap_red']) for l in design['lobbies']]
for d, (g, a) in zip(sys.argv[1:], res):
    print(f'{d}: fragstats mean true gap {st.mean(g):.3f}, its abba {st.mean(a):.3f}, best {st.mean(best):.3f}, random {st.mean(rnd):.3f}')
if len(res) == 2:
    dd = [y - x for x, y in zip(res[0][0], res[1][0])]
    print(f'gap difference {sys.argv[2]} - {sys.argv[1]}: {st.mean(dd):+.3f} (se {st.stdev(dd) / math.sqrt(len(dd)):.3f})')
    ps = [json.load(open(f'{d}/repredict.json')) for d in sys.argv[1:]]
    ll = lambda g: -math.log(g['p_new'] if g['margin'] > 0 else 1 - g['p_new']) if g['margin'] != 0 else -math.log(.5) + 0 * 0 - 0.5 * math.log(g['p_new'] * (1 - g['p_new']) / .25)
    d2 = [ll(b) - ll(a) for a, b in zip(*ps)]
    print(f'real games log-loss {st.mean(map(ll, ps[0])):.4f} -> {st.mean(map(ll, ps[1])):.4f}: diff {st.mean(d2):+.4f} (se {st.stdev(d2) / math.sqrt(len(d2)):.4f})')
