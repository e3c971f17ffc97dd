#!/usr/bin/env python3
"""What-if of the team model's skill scale on games already played, without rebuilding fragstats.

Usage: python3 whatif.py [REPREDICT_JSON] [DESIGN_JSON] [FACTOR...]
Recomputes P(red wins) of every played split from site/data/balance.js exactly as src/evaluate/team.rs does
(p = sigma((s*dm + b0) / sqrt(1 + pi/8*s^2*V)), dm = red's mean team strength - blue's (each theta through
theta / sqrt(1 + (theta/B)^2), B the data's `bound`; 0 before 2026-11-24: theta itself), V the variance of dm, equal time
weights so the size term is 0), checks it against the binary's p_new in REPREDICT_JSON (repredict.py's output),
then multiplies the scale s by each FACTOR and prints log-loss, Brier and the recalibration slope b.
The same with a prototype team strength, "pairwise": the frag edge is logit(mean over every red-blue pair of
sigma(theta_r - theta_b)) (the share of frags red makes if every pair meets alike) instead of the difference of the
mean thetas, so one very weak player (whose frags against anyone are already near 0) does not dominate.
Then the balancer under both: for every lobby of DESIGN_JSON the split (either side red) with |logit| smallest, as
src/balance does (the mean one must give the binary's fragstats split), and the true-skill gaps of those splits.
With WRITE_DESIGN=path: writes a copy of DESIGN_JSON whose fragstats arm is the pairwise balancer's split (scale x1,
the site's learnt coefficients; sides alternated by lobby as design.py does), to play it (mkgames.py path FIRST)."""
import json, math, re, sys, statistics as st

rp = json.load(open(sys.argv[1] if len(sys.argv) > 1 else 'repredict.json'))
design = json.load(open(sys.argv[2] if len(sys.argv) > 2 else 'design.json'))
factors = [float(f) for f in sys.argv[3:]] or [1, 1.5, 2, 2.5, 3, 4]
text = open('site/data/balance.js').read()
bal = json.loads(text[text.index('{'):text.rindex('}') + 1])
coef = bal['params']['coef']
strip = lambda s: re.sub(r'\^.', '', s)
skill = {strip(p['name']): (p['skill'], p['variance']) for p in bal['players']}
L = {l['lobby']: l for l in design['lobbies']}


BOUND = bal['params'].get('bound', 0.0)


def strength(theta):
    """As team::strength: the saturating team strength theta / sqrt(1 + (theta/B)^2) (B 0: theta itself)."""
    if BOUND <= 0: return theta
    x = theta / BOUND
    return theta / math.sqrt(1 + x * x)


def logit_red(red, blue, s, mode='mean'):
    side = lambda t: (st.mean(strength(skill[n][0]) for n in t), sum(skill[n][1] for n in t) / len(t) ** 2)
    (mr, vr), (mb, vb) = side(red), side(blue)
    k = 1 / math.sqrt(1 + math.pi / 8 * s * s * (vr + vb))
    if mode == 'mean':
        edge = mr - mb
    else:
        q = st.mean(1 / (1 + math.exp(-(skill[r][0] - skill[b][0]))) for r in red for b in blue)
        edge = math.log(q / (1 - q))
    return s * k * edge + coef[2] * k


def p_red(red, blue, s, mode='mean'):
    return 1 / (1 + math.exp(-logit_red(red, blue, s, mode)))


def slope(ps, ys):
    b = 0.0
    for _ in range(50):
        zs = [math.log(p / (1 - p)) for p in ps]
        q = [1 / (1 + math.exp(-b * z)) for z in zs]
        b += sum((y - qi) * z for y, qi, z in zip(ys, q, zs)) / sum(qi * (1 - qi) * z * z for qi, z in zip(q, zs))
    return b


worst = max(abs(p_red(L[g['lobby']]['arms'][g['arm']]['red'], L[g['lobby']]['arms'][g['arm']]['blue'], coef[0]) - g['p_new'])
            for g in rp)
print(f"balance.js coef {coef}; recomputed p vs the binary's: max |difference| {worst:.2e} over {len(rp)} games")
ys = [1.0 if g['margin'] > 0 else 0.0 if g['margin'] < 0 else .5 for g in rp]
for mode in ('mean', 'pairwise'):
    for f in factors:
        ps = [p_red(L[g['lobby']]['arms'][g['arm']]['red'], L[g['lobby']]['arms'][g['arm']]['blue'], coef[0] * f, mode)
              for g in rp]
        ll = st.mean(-(y * math.log(p) + (1 - y) * math.log(1 - p)) for p, y in zip(ps, ys))
        br = st.mean((p - y) ** 2 for p, y in zip(ps, ys))
        acc = sum((p > .5) == (y > .5) for p, y in zip(ps, ys) if y != .5)
        print(f"  {mode:8s} scale x{f:<4g} (s = {coef[0] * f:6.3f}): log-loss {ll:.4f} Brier {br:.4f} accuracy {acc}/{len(ps)}"
              f" p range {min(ps):.3f}..{max(ps):.3f}  slope b {slope(ps, ys):.2f}")

# 2-fold cross-validation (even / odd lobbies) of the scale factor, chosen among the FACTORs on one half
for mode in ('mean', 'pairwise'):
    lls = []
    for part in (0, 1):
        loss = lambda gs, f: st.mean(-(y * math.log(p) + (1 - y) * math.log(1 - p)) for g in gs
                                     for y in [1.0 if g['margin'] > 0 else 0.0 if g['margin'] < 0 else .5]
                                     for p in [p_red(L[g['lobby']]['arms'][g['arm']]['red'],
                                                     L[g['lobby']]['arms'][g['arm']]['blue'], coef[0] * f, mode)])
        fit = [g for g in rp if g['lobby'] % 2 == part]; test = [g for g in rp if g['lobby'] % 2 != part]
        f = min(factors, key=lambda f: loss(fit, f))
        lls.append((f, loss(test, f), len(test)))
    print(f"  {mode:8s} 2-fold CV (factor chosen on one half of the lobbies): factors {[x[0] for x in lls]} "
          f"held-out log-loss {sum(x[1] * x[2] for x in lls) / sum(x[2] for x in lls):.4f}")

import itertools, collections
true = lambda t: sum(design['bots'][n]['skill'] for n in t)
print("\nbalancer (smallest |logit| over every split, either side red) on the", len(L), "lobbies of the design:")
import copy, os
proto = copy.deepcopy(design)
for mode in ('mean', 'pairwise'):
    gaps, same, pen = [], 0, collections.defaultdict(list)
    for l, lp in zip(L.values(), proto['lobbies']):
        names = l['names']
        best = min((abs(logit_red(list(c), [n for n in names if n not in c], coef[0], mode)), c)
                   for k in (4,) for c in itertools.combinations(names, k))[1]
        if mode == 'pairwise':
            A, B = list(best), [n for n in names if n not in best]
            red, blue = (A, B) if l['lobby'] % 2 == 0 else (B, A)
            lp['arms']['fragstats'] = dict(teamA=A, teamB=B, red=red, blue=blue, gapA=true(A) - true(B),
                                           gap_red=true(red) - true(blue), p_red=p_red(red, blue, coef[0], mode))
        split = {frozenset(best), frozenset(n for n in names if n not in best)}
        same += split == {frozenset(l['arms']['fragstats']['red']), frozenset(l['arms']['fragstats']['blue'])}
        g = abs(true(best) - true([n for n in names if n not in best])); gaps.append(g)
        pen['Penguin' in names].append(g)
    print(f"  {mode:8s} mean|true gap| {st.mean(gaps):.3f} dist {dict(sorted(collections.Counter(gaps).items()))}"
          f"  Penguin in {st.mean(pen[True]):.2f} (n {len(pen[True])}) out {st.mean(pen[False]):.2f}"
          f"  same split as the design's fragstats arm {same}/{len(L)}")
if os.environ.get('WRITE_DESIGN'):
    json.dump(proto, open(os.environ['WRITE_DESIGN'], 'w'), indent=1)
    print("wrote", os.environ['WRITE_DESIGN'], "(fragstats arm = the pairwise balancer's split)")
