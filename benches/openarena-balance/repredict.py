#!/usr/bin/env python3
"""Re-predict games already played with the current fragstats binary, without replaying them.

Usage: python3 repredict.py OLD_DESIGN OLD_RESULTS [OUT_JSON]
  OLD_DESIGN   the design.json the games were played from (its played red/blue per lobby and arm)
  OLD_RESULTS  the results.json analyze.py wrote for those games (scores and the old p_red)
Runs ./fragstats balance --config site.toml --json --lock NAME=red|blue (all 8 locked, as design.py does) on
every played split: the current model's P(red wins) and expected_margin.  Prints log-loss, Brier, accuracy,
calibration bins and the recalibration slope, old vs new, per arm and overall, and the expected margin
against the real score margins; writes the per-game numbers to OUT_JSON (default repredict.json)."""
import json, math, subprocess, sys, statistics as st, collections

FS = ["./fragstats", "balance", "--config", "site.toml", "--json"]
ARMS = ['fragstats', 'abba', 'random']


def predict(red, blue):
    """The current model's (p_red_wins, expected_margin) of a fixed split (every player locked)."""
    args = list(FS)
    for n in red: args += ["--lock", f"{n}=red"]
    for n in blue: args += ["--lock", f"{n}=blue"]
    j = json.loads(subprocess.run(args + red + blue, capture_output=True, text=True, check=True).stdout)
    return j['p_red_wins'], j.get('expected_margin')


def corr(a, b):
    """Pearson correlation as text; "n/a" when either side is constant (e.g. no margin slope learnt: every
    expected_margin 0)."""
    return "n/a" if len(set(a)) < 2 or len(set(b)) < 2 else f"{st.correlation(a, b):.3f}"


def outcome(x): return 1.0 if x['margin'] > 0 else 0.0 if x['margin'] < 0 else .5


def logit(p): return math.log(p / (1 - p))


def scores(ps, ys):
    ll = st.mean(-(y * math.log(p) + (1 - y) * math.log(1 - p)) for p, y in zip(ps, ys))
    br = st.mean((p - y) ** 2 for p, y in zip(ps, ys))
    acc = [(p > .5) == (y > .5) for p, y in zip(ps, ys) if y != .5 and p != .5]
    return ll, br, sum(acc), len(acc)


def logistic(cols, y, iters=100):
    """Maximum-likelihood logistic regression y ~ sigma(sum b_k * cols[k]) by Newton: coefficients, std errors,
    mean log-loss."""
    k, n = len(cols), len(y); b = [0.0] * k
    for _ in range(iters):
        p = [1 / (1 + math.exp(-sum(b[j] * cols[j][i] for j in range(k)))) for i in range(n)]
        g = [sum((y[i] - p[i]) * cols[j][i] for i in range(n)) for j in range(k)]
        h = [[sum(p[i] * (1 - p[i]) * cols[a][i] * cols[c][i] for i in range(n)) for c in range(k)] for a in range(k)]
        step = solve(h, g); b = [bj + sj for bj, sj in zip(b, step)]
        if max(abs(s) for s in step) < 1e-10: break
    p = [1 / (1 + math.exp(-sum(b[j] * cols[j][i] for j in range(k)))) for i in range(n)]
    h = [[sum(p[i] * (1 - p[i]) * cols[a][i] * cols[c][i] for i in range(n)) for c in range(k)] for a in range(k)]
    inv = [solve(h, [1.0 if r == c else 0.0 for r in range(k)]) for c in range(k)]
    ll = st.mean(-(yi * math.log(pi) + (1 - yi) * math.log(1 - pi)) for yi, pi in zip(y, p))
    return b, [math.sqrt(inv[j][j]) for j in range(k)], ll


def solve(a, v):
    """Gaussian elimination (small dense systems)."""
    n = len(v); m = [row[:] + [v[i]] for i, row in enumerate(a)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c])); m[c], m[piv] = m[piv], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]; m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    design, results = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    out = sys.argv[3] if len(sys.argv) > 3 else 'repredict.json'
    L = {l['lobby']: l for l in design['lobbies']}
    games = []
    for x in results:
        a = L[x['lobby']]['arms'][x['arm']]
        p, em = predict(a['red'], a['blue'])
        games.append(dict(x, p_old=x['p_red'], p_new=p, expected_margin=em))
    json.dump(games, open(out, 'w'), indent=0)
    print(f"games re-predicted: {len(games)} (" + ", ".join(f"{a} {sum(g['arm'] == a for g in games)}" for a in ARMS)
          + "); ties (scored 0.5):", sum(g['margin'] == 0 for g in games))
    print("baseline constant 0.5: log-loss 0.6931, Brier 0.2500")
    groups = [(a, [g for g in games if g['arm'] == a]) for a in ARMS] + [('all', games)]

    print("\n== P(red wins) of the played split vs the result: old model (the run's binary) vs the current one ==")
    for name, gs in groups:
        ys = [outcome(g) for g in gs]
        for which in ('old', 'new'):
            ps = [g['p_' + which] for g in gs]
            ll, br, c, n = scores(ps, ys)
            zs = [logit(p) for p in ps]
            (b,), (se,), llb = logistic([zs], ys)
            print(f"  {name:9s} {which}  n {len(gs):3d} log-loss {ll:.4f} Brier {br:.4f} accuracy {c:3d}/{n}  "
                  f"p range {min(ps):.3f}..{max(ps):.3f} mean {st.mean(ps):.3f}  red-win rate {st.mean(ys):.3f}  "
                  f"slope b {b:5.2f} (se {se:.2f})")

    print("\n== calibration bins, all games (observed = share red won) ==")
    edges = [0, .1, .2, .3, .4, .45, .5, .55, .6, .7, .8, .9, 1.0001]
    for which in ('old', 'new'):
        print(f"  {which} model:")
        for lo, hi in zip(edges, edges[1:]):
            b = [g for g in games if lo <= g['p_' + which] < hi]
            if b:
                print(f"    p in [{lo:.2f},{min(hi, 1):.2f}): n {len(b):3d} mean p {st.mean(g['p_' + which] for g in b):.3f} "
                      f"observed {st.mean(outcome(g) for g in b):.3f}")

    print("\n== recalibration fits over all games, ties dropped: P(red wins) = sigma(a + b * logit p) ==")
    gs = [g for g in games if g['margin'] != 0]; ys = [outcome(g) for g in gs]
    for which in ('old', 'new'):
        zs = [logit(g['p_' + which]) for g in gs]
        (b,), (se,), ll1 = logistic([zs], ys)
        (a0, b2), (sa, sb), ll2 = logistic([[1.0] * len(zs), zs], ys)
        print(f"  {which}: slope only b {b:.2f} (se {se:.2f}), in-sample log-loss {ll1:.4f};  with intercept a {a0:+.2f} "
              f"(se {sa:.2f}) b {b2:.2f} (se {sb:.2f}), log-loss {ll2:.4f}")
    # out of sample: fit b on the even lobbies, score the odd ones, and the other way round
    for which in ('old', 'new'):
        lls = []
        for part in (0, 1):
            fit = [g for g in gs if g['lobby'] % 2 == part]; test = [g for g in gs if g['lobby'] % 2 != part]
            (b,), _, _ = logistic([[logit(g['p_' + which]) for g in fit]], [outcome(g) for g in fit])
            lls += [-(outcome(g) * math.log(q) + (1 - outcome(g)) * math.log(1 - q))
                    for g in test for q in [1 / (1 + math.exp(-b * logit(g['p_' + which])))]]
        print(f"  {which}: 2-fold (even/odd lobbies) cross-validated log-loss of sigma(b * logit p): {st.mean(lls):.4f}")

    print("\n== P(stronger true side wins) by |true-skill gap| (configured skill sums; all games) ==")
    for gap in sorted(set(abs(g['gap_red']) for g in games)):
        s = [g for g in games if abs(g['gap_red']) == gap]
        if gap == 0:
            print(f"  |gap| 0: n {len(s):3d}  mean new p_red {st.mean(g['p_new'] for g in s):.3f}  red won {sum(g['margin'] > 0 for g in s)}")
            continue
        sp = lambda g, w: g['p_' + w] if g['gap_red'] > 0 else 1 - g['p_' + w]
        won = sum((g['margin'] > 0) == (g['gap_red'] > 0) for g in s if g['margin'] != 0)
        print(f"  |gap| {gap}: n {len(s):3d}  stronger side won {won}/{len(s)}  its mean p: old {st.mean(sp(g, 'old') for g in s):.3f}"
              f"  new {st.mean(sp(g, 'new') for g in s):.3f}")

    print("\n== expected_margin (balance --json) vs the real score margin (red - blue) ==")
    for name, gs in groups:
        em = [g['expected_margin'] for g in gs]; m = [g['margin'] for g in gs]
        mae = st.mean(abs(a - b) for a, b in zip(m, em)); mae0 = st.mean(abs(x) for x in m)
        xs = [2 * g['p_new'] - 1 for g in gs]
        c = sum(a * b for a, b in zip(m, xs)) / sum(x * x for x in xs)
        maec = st.mean(abs(a - c * x) for a, x in zip(m, xs))
        print(f"  {name:9s} n {len(gs):3d} MAE {mae:6.2f}  MAE of 0 (even) {mae0:6.2f}  mean|expected| {st.mean(abs(e) for e in em):5.2f}"
              f"  corr {corr(m, em)}  best slope c on 2p-1 {c:7.1f} (MAE {maec:6.2f})")
    print(f"  (the site's learnt slope: expected_margin / (2p - 1) = "
          f"{st.mean(g['expected_margin'] / (2 * g['p_new'] - 1) for g in games if abs(2 * g['p_new'] - 1) > 1e-9):.3f})")


if __name__ == '__main__':
    main()
