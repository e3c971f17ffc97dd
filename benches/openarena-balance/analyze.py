#!/usr/bin/env python3
"""Parse games/chunkNN/games.log (OpenArena g_log), match games to chunkNN.tsv ids, check rosters against
design.json, and report margins, paired tests and calibration.  Usage: python3 analyze.py  (in the working folder)
With OLD_DESIGN=path[:path...] (designs whose splits were played before, see mkgames.py OLD_DESIGN FIRST): a game
whose roster is not the current design's split must be that lobby's and arm's split in one of them; it is counted as
superseded and left out (its replacement is in a later chunk).  VERSUS=other/results.json adds a paired test of
this fragstats arm against that run's, by lobby.  SIDE=a compares the arms on |margin - a| instead of |margin| (a:
red's side edge in frags, e.g. the "red side" intercept printed below).  Every game kept says its chunk (`chunk` in
results.json), so the report says how many games of each arm were reused from the old chunks."""
import json, re, glob, math, random, statistics as st, collections
strip = lambda s: re.sub(r'\^.', '', s)
d = json.load(open('design.json')); L = {l['lobby']: l for l in d['lobbies']}
ARMS = ['fragstats', 'abba', 'random']

def parse(path):
    games, cur = [], None
    for line in open(path, errors='replace'):
        m = re.match(r'\s*\d+:\d+ (\w+):(.*)', line)
        if not m: continue
        ev, rest = m.groups()
        if ev == 'InitGame':
            cur = dict(map=re.search(r'\\mapname\\([^\\]*)', rest).group(1), team={}, exit=None, score=None, kills=0)
            games.append(cur)
        elif cur is None: continue
        elif ev == 'ClientUserinfoChanged':
            cid, info = rest.strip().split(' ', 1)
            f = info.split('\\'); kv = dict(zip(f[0::2], f[1::2]))
            # play.sh split addbot lines on '|', so "|RB|Headcrash" was added unnamed and took its character's
            # default name "Headcrash" (same character, skill 3, team): map it back
            nm = strip(kv['n']); nm = '|RB|Headcrash' if nm == 'Headcrash' else nm
            assert kv.get('skill', '').strip() in ('', '%d.00' % d['bots'][nm]['skill']), (nm, kv.get('skill'))
            cur['team'][cid] = (nm, kv['t'])
        elif ev == 'Kill': cur['kills'] += 1
        elif ev == 'Exit': cur['exit'] = rest.strip()
        elif ev == 'red' or line.strip().split(' ', 1)[1].startswith('red:'):
            pass
        mm = re.match(r'\s*\d+:\d+ red:(-?\d+)\s+blue:(-?\d+)', line)
        if mm and cur is not None: cur['score'] = (int(mm.group(1)), int(mm.group(2)))
    return [g for g in games if g['exit'] and g['score']]

import os
OLD = [{l['lobby']: l for l in json.load(open(p))['lobbies']} for p in os.environ.get('OLD_DESIGN', '').split(':') if p]
res, superseded, seen = [], [], set()
for tsv in sorted(glob.glob('chunk*.tsv')):
    ids = [l.split('\t')[:2] for l in open(tsv).read().splitlines()]
    log = tsv.replace('.tsv', '').join(['games/', '/games.log'])
    try: games = parse(log)
    except FileNotFoundError: continue
    for (gid, mp), g in zip(ids, games):
        lob, arm = int(gid[1:3]), gid[4:]
        a = L[lob]['arms'][arm]
        red = sorted(n for n, t in g['team'].values() if t == '1'); blue = sorted(n for n, t in g['team'].values() if t == '2')
        assert g['map'] == mp, (gid, g['map'], mp)
        if not (red == sorted(a['red']) and blue == sorted(a['blue'])):
            assert any(red == sorted(o[lob]['arms'][arm]['red']) and blue == sorted(o[lob]['arms'][arm]['blue'])
                       for o in OLD), (gid, g, a)
            superseded.append(gid); continue
        assert (lob, arm) not in seen, f'{gid} played twice with the current split'
        seen.add((lob, arm))
        r, b = g['score']
        res.append(dict(id=gid, lobby=lob, arm=arm, map=mp, red=r, blue=b, margin=r - b, exit=g['exit'], kills=g['kills'],
                        p_red=a['p_red'], gap_red=a['gap_red'], best=L[lob]['best_abs_gap'], chunk=tsv[:-4]))
json.dump(res, open('results.json', 'w'), indent=1)
by = collections.defaultdict(dict)
for x in res: by[x['lobby']][x['arm']] = x
MAXL = int(os.environ.get('MAXLOBBY', '100000'))
full = sorted(l for l in by if len(by[l]) == 3 and l < MAXL)
print(f"games parsed: {len(res)}; per arm: " + ", ".join(f"{a} {sum(x['arm']==a for x in res)}" for a in ARMS)
      + f"; complete lobbies (all three arms): {len(full)}")
print("exits:", dict(collections.Counter(x['exit'] for x in res)), " kills/game mean %.1f" % st.mean(x['kills'] for x in res))
if OLD:
    print(f"superseded games (played with OLD_DESIGN's split, left out): {len(superseded)}")
    for a in ARMS:
        ch = collections.Counter(x['chunk'] for x in res if x['arm'] == a)
        print(f"  {a}: games by chunk {dict(sorted(ch.items()))}")

print("\n== true-skill gap (configured skill sums, played red - blue) over the complete lobbies ==")
for a in ARMS:
    g = [abs(by[l][a]['gap_red']) for l in full]
    print(f"  {a:9s} mean|gap| {st.mean(g):.3f} sd {st.stdev(g):.3f}")
print(f"  best      mean|gap| {st.mean(by[l]['fragstats']['best'] for l in full):.3f}")

print("\n== score margins (red - blue frags-score), complete lobbies ==")
for a in ARMS:
    xs = [by[l][a] for l in full]; m = [abs(x['margin']) for x in xs]
    # stronger predicted side = side with fragstats p > .5
    pw = [(x['p_red'] > .5) == (x['margin'] > 0) for x in xs if x['margin'] != 0 and x['p_red'] != .5]
    tw = [(x['gap_red'] > 0) == (x['margin'] > 0) for x in xs if x['margin'] != 0 and x['gap_red'] != 0]
    redw = sum(x['margin'] > 0 for x in xs); ties = sum(x['margin'] == 0 for x in xs)
    print(f"  {a:9s} n {len(xs)} mean|margin| {st.mean(m):.2f} sd {st.stdev(m):.2f} median {st.median(m)}  "
          f"mean margin(red-blue) {st.mean(x['margin'] for x in xs):+.2f}  red wins {redw} ties {ties}  "
          f"stronger-by-p side won {sum(pw)}/{len(pw)}  stronger-by-true-skill side won {sum(tw)}/{len(tw)}")

def wilcoxon(diff):
    """exact two-sided and one-sided (less) Wilcoxon signed-rank (zeros dropped, midranks; exact by DP on doubled ranks)."""
    z = [x for x in diff if x != 0]; n = len(z)
    if n == 0: return 1, 1, 0
    o = sorted(range(n), key=lambda i: abs(z[i])); r2 = [0] * n; i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(z[o[j + 1]]) == abs(z[o[i]]): j += 1
        for k in range(i, j + 1): r2[o[k]] = i + j + 2  # doubled midrank
        i = j + 1
    wplus = sum(r2[i] for i in range(n) if z[i] > 0); tot = sum(r2)
    dist = collections.Counter({0: 1})
    for r in r2:
        nd = collections.Counter()
        for s, c in dist.items(): nd[s] += c; nd[s + r] += c
        dist = nd
    N = 2 ** n
    p_less = sum(c for s, c in dist.items() if s <= wplus) / N
    p_greater = sum(c for s, c in dist.items() if s >= wplus) / N
    return min(1, 2 * min(p_less, p_greater)), p_less, n

def signflip(diff, iters=200000, seed=1):
    rng = random.Random(seed); obs = sum(diff); n = 0
    for _ in range(iters):
        if sum(x if rng.random() < .5 else -x for x in diff) <= obs: n += 1
    return (n + 1) / (iters + 1)

def boot_ci(diff, iters=20000, seed=2):
    rng = random.Random(seed); ms = sorted(st.mean(rng.choices(diff, k=len(diff))) for _ in range(iters))
    return ms[int(.025 * iters)], ms[int(.975 * iters)]

SIDE = float(os.environ.get('SIDE', '0'))  # SIDE=a: compare |margin - a| (a = red's side edge in frags)
print("\n== paired tests on |margin" + (f" - {SIDE:g}" if SIDE else "") + "| per lobby (difference = first arm - second arm; negative = first arm closer) ==")
for a, b in (('fragstats', 'random'), ('fragstats', 'abba'), ('abba', 'random')):
    diff = [abs(by[l][a]['margin'] - SIDE) - abs(by[l][b]['margin'] - SIDE) for l in full]
    p2, pl, nz = wilcoxon(diff)
    lo, hi = boot_ci(diff)
    print(f"  {a} vs {b}: mean diff {st.mean(diff):+.2f} (bootstrap 95% CI {lo:+.2f}..{hi:+.2f}), {a} closer in "
          f"{sum(x < 0 for x in diff)}/{len(diff)} (ties {sum(x == 0 for x in diff)}); Wilcoxon exact n={nz}: one-sided "
          f"p(less) {pl:.4f}, two-sided {p2:.4f}; sign-flip permutation one-sided p {signflip(diff):.4f}")

def scores(xs):
    ys = [(x['p_red'], 1.0 if x['margin'] > 0 else 0.0 if x['margin'] < 0 else .5) for x in xs]
    ll = st.mean(-(y * math.log(p) + (1 - y) * math.log(1 - p)) for p, y in ys)
    br = st.mean((p - y) ** 2 for p, y in ys)
    acc = [(p > .5) == (y > .5) for p, y in ys if y != .5 and p != .5]
    return ll, br, sum(acc), len(acc), ys

print("\n== fragstats' predicted P(red wins) (balance --lock on the played split) vs result (tie = 0.5) ==")
print("   baseline constant 0.5: log-loss 0.6931, Brier 0.2500")
for name, xs in (('fragstats arm', [by[l]['fragstats'] for l in full]), ('abba arm', [by[l]['abba'] for l in full]),
                 ('random arm', [by[l]['random'] for l in full]), ('all games', [by[l][a] for l in full for a in ARMS])):
    ll, br, c, n, ys = scores(xs)
    print(f"  {name:13s} n {len(xs)} log-loss {ll:.4f} Brier {br:.4f} accuracy {c}/{n}  mean p {st.mean(p for p, _ in ys):.3f} "
          f"red-win rate {st.mean(y for _, y in ys):.3f}  p range {min(p for p,_ in ys):.3f}..{max(p for p,_ in ys):.3f}")
    if name in ('fragstats arm', 'all games'):
        edges = [0, .4, .47, .5, .53, .6, 1] if name == 'fragstats arm' else [0, .3, .4, .47, .53, .6, .7, 1]
        for lo, hi in zip(edges, edges[1:]):
            b = [(p, y) for p, y in ys if lo <= p < hi]
            if b: print(f"      p in [{lo:.2f},{hi:.2f}): n {len(b):3d} mean p {st.mean(p for p, _ in b):.3f} observed red wins {st.mean(y for _, y in b):.3f}")

# sensitivity of the game to skill: correlation of margin with true-skill gap and with logit p
xs = [by[l][a] for l in full for a in ARMS]
print("\n== does the game follow skill? over all %d games ==" % len(xs))
print("  corr(margin, true gap red-blue) %.3f   corr(margin, logit p_red) %.3f" % (
    st.correlation([x['margin'] for x in xs], [x['gap_red'] for x in xs]),
    st.correlation([x['margin'] for x in xs], [math.log(x['p_red'] / (1 - x['p_red'])) for x in xs])))
for g in sorted(set(abs(x['gap_red']) for x in xs)):
    s = [x for x in xs if abs(x['gap_red']) == g]
    w = [(x['margin'] > 0) == (x['gap_red'] > 0) for x in s if x['margin'] != 0]
    print(f"  |true gap| {g}: n {len(s):3d} mean|margin| {st.mean(abs(x['margin']) for x in s):.2f}" +
          (f"  stronger(true) side won {sum(w)}/{len(w)}" if g else ""))
mx, my = st.mean(x['gap_red'] for x in xs), st.mean(x['margin'] for x in xs)
slope = sum((x['gap_red'] - mx) * (x['margin'] - my) for x in xs) / sum((x['gap_red'] - mx) ** 2 for x in xs)
icpt = my - slope * mx; resid = [x['margin'] - icpt - slope * x['gap_red'] for x in xs]
z0 = [x for x in xs if x['gap_red'] == 0]
print(f"  red side: margin = a + b * true gap (least squares): a {icpt:+.2f} frags (se {st.stdev(resid) / math.sqrt(len(xs)):.2f}) "
      f"b {slope:.2f} per skill point; red won {sum(x['margin'] > 0 for x in z0)}/{len(z0)} games at true gap 0")
sidesum = collections.Counter((x['map'], x['margin'] > 0) for x in xs)
print("  red wins by map:", {m: f"{sidesum[(m, True)]}/{sum(x['map'] == m for x in xs)}" for m in sorted(set(x['map'] for x in xs))})

print("\n== identical splits between arms (same red set as played) and their results ==")
for a, b in (('fragstats', 'abba'), ('fragstats', 'random'), ('abba', 'random')):
    same = [l for l in full if sorted(L[l]['arms'][a]['red']) == sorted(L[l]['arms'][b]['red'])]
    print(f"  {a}={b} in {len(same)}/{len(full)} lobbies; scores " +
          ", ".join(f"L{l:02d} {by[l][a]['red']}-{by[l][a]['blue']} vs {by[l][b]['red']}-{by[l][b]['blue']}" for l in same))

print("\n== lobbies with Penguin (skill 1, rating ~981): does the configured-skill sum or fragstats' rating judge better? ==")
for a in ARMS:
    for pen in (True, False):
        s = [by[l][a] for l in full if ('Penguin' in L[l]['names']) == pen]
        if not s: continue
        print(f"  {a:9s} Penguin {'in ' if pen else 'out'} n {len(s):2d} mean|margin| {st.mean(abs(x['margin']) for x in s):6.2f}  mean|true gap| {st.mean(abs(x['gap_red']) for x in s):.2f}")
s = [by[l]['fragstats'] for l in full if abs(by[l]['fragstats']['gap_red']) >= 2]
w = [(x['margin'] > 0) == (x['gap_red'] > 0) for x in s if x['margin'] != 0]
pen = sum('Penguin' in L[x['lobby']]['arms']['fragstats']['red' if x['gap_red'] > 0 else 'blue'] for x in s)
print(f"  fragstats arm, |true gap|>=2 (Penguin on the higher-sum side in {pen}/{len(s)}): higher-sum side won {sum(w)}/{len(w)}; "
      f"margins (higher-sum side minus other): {[x['margin'] * (1 if x['gap_red'] > 0 else -1) for x in s]}")

print("\n== recalibration: fit P(red wins) = sigma(b * logit p_red) over all games (ties dropped) ==")
xs = [by[l][a] for l in full for a in ARMS if by[l][a]['margin'] != 0]
z = [math.log(x['p_red'] / (1 - x['p_red'])) for x in xs]; y = [1 if x['margin'] > 0 else 0 for x in xs]
b = 0.0
for _ in range(50):
    ps = [1 / (1 + math.exp(-b * zi)) for zi in z]
    g = sum((yi - pi) * zi for yi, pi, zi in zip(y, ps, z)); h = sum(pi * (1 - pi) * zi * zi for pi, zi in zip(ps, z))
    b += g / h
se = 1 / math.sqrt(sum(pi * (1 - pi) * zi * zi for pi, zi in zip(ps, z)))
ll = st.mean(-(yi * math.log(pi) + (1 - yi) * math.log(1 - pi)) for yi, pi in zip(y, ps))
print(f"  n {len(xs)} slope b {b:.2f} (se {se:.2f}; 1 = calibrated, >1 = predictions too close to 50%); "
      f"in-sample log-loss with b: {ll:.4f}")

if os.environ.get('VERSUS'):
    # this folder's fragstats arm against another run's (e.g. a prototype's splits against the current binary's)
    other = {x['lobby']: x for x in json.load(open(os.environ['VERSUS'])) if x['arm'] == 'fragstats'}
    print(f"\n== paired: this run's fragstats arm vs {os.environ['VERSUS']}'s fragstats arm (|margin| difference) ==")
    for label, sel in (('all', lambda l: True), ('Penguin in', lambda l: 'Penguin' in L[l]['names']),
                       ('Penguin out', lambda l: 'Penguin' not in L[l]['names'])):
        ls = [l for l in full if l in other and sel(l)]
        same = sum(by[l]['fragstats']['id'] == other[l]['id'] and by[l]['fragstats']['margin'] == other[l]['margin'] for l in ls)
        diff = [abs(by[l]['fragstats']['margin']) - abs(other[l]['margin']) for l in ls]
        p2, pl, nz = wilcoxon(diff); lo, hi = boot_ci(diff)
        print(f"  {label:11s} n {len(ls)} (same game in {same}) mean|margin| {st.mean(abs(by[l]['fragstats']['margin']) for l in ls):.2f} "
              f"vs {st.mean(abs(other[l]['margin']) for l in ls):.2f}: mean diff {st.mean(diff):+.2f} (bootstrap 95% CI {lo:+.2f}..{hi:+.2f}); "
              f"Wilcoxon exact n={nz}: two-sided p {p2:.4f}; sign-flip one-sided p(less) {signflip(diff):.4f}")
