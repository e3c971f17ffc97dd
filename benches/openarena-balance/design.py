#!/usr/bin/env python3
"""Design lobbies and the three team splits (fragstats / ABBA / random) for the OpenArena ground truth.
Usage: python3 design.py [NLOBBIES] [SEED]   -> writes design.json (in the current folder)."""
import json, random, re, subprocess, sys, itertools
POOL = ["Sarge:4:[OA]Sarge", "Grunt:3:=XiX=Grunt", "Major:4:^1Red^7Devil", "Tanisha:2:Tanisha", "Kyonshi:3:{TDK}Kyonshi",
  "Angelyss:5:^5Angel^7yss", "Ayumi:2:Ayumi", "Gargoyle:3:Gargoyle", "Sorceress:4:=XiX=Witch", "Penguin:1:Penguin",
  "Morgan:3:[OA]Morgan", "Jenna:3:^3Jenna^7<3", "Skelebot:5:xXSkullXx", "Beret:2:Beret", "Liz:4:{TDK}Liz",
  "Merman:2:^2Merm^7an", "Tony:3:Tony", "Grism:4:Grism", "Headcrash:3:|RB|Headcrash", "Sergei:2:The Dude"]
strip = lambda s: re.sub(r'\^.', '', s)
BOTS = {}
for e in POOL:
    c, s, n = e.split(':', 2)
    BOTS[strip(n)] = dict(char=c, skill=int(s), raw=n, plain=strip(n))
MAPS = ["oa_dm5", "oa_dm3", "kaos2"]
N = int(sys.argv[1]) if len(sys.argv) > 1 else 36
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 20261123
SIZE = 8
FS = ["./fragstats", "balance", "--config", "site.toml", "--json"]

def bal(names, locks=None):
    args = list(FS)
    for n, t in (locks or {}).items(): args += ["--lock", f"{n}={t}"]
    out = subprocess.run(args + names, capture_output=True, text=True, check=True).stdout
    return json.loads(out)

def gap(red, blue): return sum(BOTS[n]['skill'] for n in red) - sum(BOTS[n]['skill'] for n in blue)

def p_of(red, blue):
    """fragstats' P(red wins) for a fixed split (every player locked)."""
    locks = {n: 'red' for n in red}; locks.update({n: 'blue' for n in blue})
    return bal(red + blue, locks)['p_red_wins']

rng = random.Random(SEED)
lobbies = []
for i in range(N):
    names = rng.sample(sorted(BOTS), SIZE)
    j = bal(names)
    m = lambda lst: [strip(x) for x in lst]
    for k in ('red', 'blue'): assert set(m(j[k])) <= set(names), (j, names)
    fsA, fsB = m(j['red']), m(j['blue'])
    abA, abB = m(j['abba']['red']), m(j['abba']['blue'])
    sh = names[:]; rng.shuffle(sh); rA, rB = sh[:SIZE // 2], sh[SIZE // 2:]
    best = min(abs(gap(list(c), [n for n in names if n not in c]))
               for c in itertools.combinations(names, SIZE // 2))
    arms = {}
    for arm, (A, B) in dict(fragstats=(fsA, fsB), abba=(abA, abB), random=(rA, rB)).items():
        # alternate the side the arm's first team (fragstats' proposed red) plays: lobby i even -> as proposed
        red, blue = (A, B) if i % 2 == 0 else (B, A)
        arms[arm] = dict(teamA=A, teamB=B, red=red, blue=blue, gapA=gap(A, B), gap_red=gap(red, blue),
                         p_red=p_of(red, blue))
    lobbies.append(dict(lobby=i, names=names, map=MAPS[i % len(MAPS)], best_abs_gap=best,
                        fs_p_red_proposed=j['p_red_wins'], abba_p_red_proposed=j['abba']['p_red_wins'],
                        exact=j['exact'], arms=arms))
json.dump(dict(seed=SEED, size=SIZE, bots=BOTS, lobbies=lobbies), open('design.json', 'w'), indent=1)
import statistics as st
print(f"{N} lobbies of {SIZE}, seed {SEED}")
print("true-skill |gap| (sum of configured skill, team A - team B):")
for arm in ('fragstats', 'abba', 'random'):
    g = [abs(l['arms'][arm]['gapA']) for l in lobbies]
    print(f"  {arm:9s} mean {st.mean(g):.3f} sd {st.stdev(g):.3f} zero-gap {sum(x == 0 for x in g)}/{N} dist {dict(sorted(__import__('collections').Counter(g).items()))}")
g = [l['best_abs_gap'] for l in lobbies]
print(f"  best      mean {st.mean(g):.3f} sd {st.stdev(g):.3f} zero-gap {sum(x == 0 for x in g)}/{N}")
