// balance.html: the team balancer in the browser. A port of src/balance (names resolved as
// `fragstats balance` resolves them, the exhaustive search up to 24 players with the same
// tie-breaking, the meet-in-the-middle search up to 40 (src/balance/exact.rs, same order of
// operations, so the same sums and ties), the same local search beyond), reading data/balance.js. The lobby lives in the
// URL (?players=A,B,C, each name URI-encoded) so a link shares it. Names are always set as text.
(function () {
  "use strict";
  var EXACT_UP_TO = 24, MEET_UP_TO = 40, MAX_PLAYERS = 256, TIE = 1e-9, AVOID_KEEP = 32;
  var data = window.FRAGSTATS_BALANCE;
  var el = function (id) { return document.getElementById(id); };
  if (!data || !data.params || !data.players) {
    el("balance-error").textContent = "data/balance.js is missing: build the site again.";
    return;
  }
  var params = data.params, players = data.players, recent = data.recent || [];
  var settings = data.settings || { clans: "off", clan_penalty: 2, party_guard: 0.75,
    avoid_last: false, avoid_last_within: 3 };

  function plain(name) { return String(name).replace(/\^[0-9A-Za-z]/g, "").trim(); }
  var index = players.map(function (p) {
    return [p.name].concat(p.names || []).map(function (n) { return n.toLowerCase(); });
  });

  function distance(a, b) {
    a = Array.from(a).slice(0, 64); b = Array.from(b).slice(0, 64);
    var row = [], i, j;
    for (j = 0; j <= b.length; j++) row.push(j);
    for (i = 0; i < a.length; i++) {
      var diagonal = row[0];
      row[0] = i + 1;
      for (j = 0; j < b.length; j++) {
        var next = Math.min(row[j + 1] + 1, row[j] + 1, diagonal + (a[i] !== b[j] ? 1 : 0));
        diagonal = row[j + 1];
        row[j + 1] = next;
      }
    }
    return row[b.length];
  }

  // As BalanceData::resolve: {known: i} or {fresh: name} or {error: text}.
  function resolve(query) {
    var p = plain(query), wanted = p.toLowerCase(), i;
    if (!wanted) return { error: JSON.stringify(query) + " is not a name" };
    for (i = 0; i < players.length; i++) if (players[i].name === p) return { known: i };
    function matching(test) {
      var out = [];
      for (var k = 0; k < players.length; k++) if (index[k].some(test)) out.push(k);
      return out;
    }
    var found = matching(function (n) { return n === wanted; });
    if (!found.length) found = matching(function (n) { return n.startsWith(wanted); });
    if (!found.length) found = matching(function (n) { return n.indexOf(wanted) >= 0; });
    if (found.length === 1) return { known: found[0] };
    if (found.length > 1) {
      return { error: JSON.stringify(query) + " is ambiguous: it could be " +
        found.slice(0, 8).map(function (k) { return players[k].name; }).join(", ") +
        (found.length > 8 ? ", ..." : "") };
    }
    var close = [];
    for (i = 0; i < players.length; i++) {
      var d = Math.min.apply(null, index[i].map(function (n) { return distance(n, wanted); }));
      if (d <= 2) close.push([d, i]);
    }
    if (!close.length) return { fresh: p };
    close.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    return { error: "no player is called " + JSON.stringify(query) + "; did you mean " +
      close.slice(0, 5).map(function (c) { return players[c[1]].name; }).join(", ") + "?" };
  }

  // As team::strength: a player's saturating team strength (bound 0 or absent: θ itself).
  // Only + × ÷ √, which IEEE 754 rounds exactly, so it gives the CLI's bits.
  function strength(theta) {
    var bound = params.bound || 0;
    if (!(bound > 0) || !isFinite(theta)) return theta;
    var x = theta / bound;
    if (Math.abs(x) > 1e100) return x > 0 ? bound : -bound;
    return theta / Math.sqrt(1 + x * x);
  }

  // The team model (TeamParams::p_red with weights 1 and no map), on the lobby's strengths.
  function scale() { return Math.max(params.coef[0], 0); }
  function pRed(lobby, red, blue) {
    function side(ids) {
      var weight = 0, sum = 0, variance = 0, k;
      for (k = 0; k < ids.length; k++) { weight += 1; sum += lobby[ids[k]].mean; }
      if (weight <= 0) return [0, 0, 0];
      for (k = 0; k < ids.length; k++) variance += (1 / weight) * (1 / weight) * lobby[ids[k]].variance;
      return [sum / weight, variance, weight];
    }
    var r = side(red), b = side(blue);
    var size = r[2] > 0 && b[2] > 0 ? Math.log(r[2] / b[2]) : 0;
    var s = scale(), spread = Math.PI / 8 * s * s * (r[1] + b[1]);
    var k = isFinite(spread) ? 1 / Math.sqrt(1 + spread) : 0;
    var logit = 0;
    logit += s * (k * (r[0] - b[0]));
    logit += params.coef[1] * (k * size);
    logit += params.coef[2] * k;
    logit += params.coef[3] * (k * 0);
    return 1 / (1 + Math.exp(-logit));
  }

  function splitOf(lobby, redSet) {
    var red = [], blue = [];
    for (var i = 0; i < lobby.length; i++) (redSet[i] ? red : blue).push(i);
    return { red: red, blue: blue, p: pRed(lobby, red, blue) };
  }

  // As balance::soft: the clan rule. `soft` = {mode, clans: [{name, members}], unit}.
  function popcount(x) {
    x = x - ((x >>> 1) & 0x55555555);
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0F0F0F0F) * 0x01010101) >>> 24;
  }
  function misplaced(mode, red, size) {
    if (mode === "together") return Math.min(red, size - red);
    if (mode === "spread") return Math.floor(Math.abs(2 * red - size) / 2);
    return 0;
  }
  function softActive(soft) { return soft.mode !== "off" && soft.unit > 0 && soft.clans.length > 0; }
  function outOfPlace(soft, onRed) {
    var count = 0;
    soft.clans.forEach(function (c) {
      var red = 0;
      c.members.forEach(function (i) { if (onRed(i)) red++; });
      count += misplaced(soft.mode, red, c.members.length);
    });
    return count;
  }
  function penaltyOf(soft, split) {
    if (!softActive(soft)) return 0;
    return soft.unit * outOfPlace(soft, function (i) { return split.red.indexOf(i) >= 0; });
  }
  // The clans as masks over the players below `cut` (lo) and from `cut` on (hi, shifted).
  function softMasks(soft, cut) {
    var active = softActive(soft);
    var clans = soft.clans.map(function (c) {
      var lo = 0, hi = 0;
      c.members.forEach(function (i) { if (i < cut) lo |= 1 << i; else hi |= 1 << (i - cut); });
      return [lo, hi, c.members.length];
    });
    return {
      active: active,
      penalty: function (lo, hi) {
        var count = 0;
        for (var k = 0; k < clans.length; k++) {
          count += misplaced(soft.mode, popcount(lo & clans[k][0]) + popcount(hi & clans[k][1]), clans[k][2]);
        }
        return soft.unit * count;
      }
    };
  }
  // As soft::p_distance: |p - 50%| of |logit|.
  function pDistance(x) { return 1 / (1 + Math.exp(-x)) - 0.5; }

  function abba(lobby) {
    var order = lobby.map(function (_, i) { return i; });
    order.sort(function (a, b) { return lobby[b].mean - lobby[a].mean || a - b; });
    var red = [], blue = [];
    order.forEach(function (i, k) { (k % 4 === 0 || k % 4 === 3 ? red : blue).push(i); });
    var num = function (a, b) { return a - b; };
    red.sort(num); blue.sort(num);
    return { red: red, blue: blue, p: pRed(lobby, red, blue) };
  }

  // As balance::random::Mulberry32: u32 state, u32 outputs.
  function mulberry32(state) {
    state = state >>> 0;
    return function () {
      state = (state + 0x6D2B79F5) >>> 0;
      var t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1) >>> 0;
      t = (t ^ ((t + Math.imul(t ^ (t >>> 7), t | 61)) >>> 0)) >>> 0;
      return (t ^ (t >>> 14)) >>> 0;
    };
  }
  // Names in UTF-8 byte order (Rust's str order): by code point.
  function byName(a, b) {
    var x = Array.from(a), y = Array.from(b);
    for (var i = 0; i < x.length && i < y.length; i++) {
      var d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d) return d;
    }
    return x.length - y.length;
  }
  // As random::seed_of: FNV-1a over the sorted names' UTF-8 bytes, each ended by a zero byte.
  function seedOf(lobby) {
    var names = lobby.map(function (c) { return c.name; }).sort(byName);
    var hash = 0x811C9DC5, utf8 = new TextEncoder();
    names.forEach(function (name) {
      var bytes = Array.from(utf8.encode(name)).concat([0]);
      bytes.forEach(function (b) { hash = Math.imul((hash ^ b) >>> 0, 0x01000193) >>> 0; });
    });
    return hash;
  }
  // As random::random_split without rules (its first draw): the players sorted by name,
  // shuffled, red filled up to its size (for an odd lobby, a draw says which side is bigger).
  function randomSplit(lobby, seed) {
    var n = lobby.length, next = mulberry32(seed);
    var order = lobby.map(function (_, i) { return i; });
    order.sort(function (a, b) { return byName(lobby[a].name, lobby[b].name) || a - b; });
    var redSize = Math.floor(n / 2);
    if (n % 2 === 1 && (next() & 1) === 1) redSize++;
    for (var i = n - 1; i >= 1; i--) {
      // Multiply-shift: exact in doubles (below 2^41).
      var j = Math.floor(next() * (i + 1) / 4294967296);
      var t = order[i]; order[i] = order[j]; order[j] = t;
    }
    var redSet = lobby.map(function () { return false; });
    for (i = 0; i < redSize; i++) redSet[order[i]] = true;
    var split = splitOf(lobby, redSet);
    split.seed = seed;
    return split;
  }

  // Best splits kept: [rounded cost, partition, red], ordered by (cost, partition).
  function offer(best, keep, cost, partition, red) {
    var key = Math.round(cost / TIE) * TIE;
    var lt = function (c1, p1, c2, p2) { return c1 < c2 || (c1 === c2 && p1 < p2); };
    if (best.length === keep) {
      var last = best[best.length - 1];
      // (The last entry's own partition may still take a better side: hence the red.)
      if (!(lt(key, partition, last[0], last[1]) || (key === last[0] && partition === last[1] && red < last[2]))) return;
    }
    for (var at = 0; at < best.length; at++) {
      if (best[at][1] === partition) {
        if (!lt(key, red, best[at][0], best[at][2])) return;
        best.splice(at, 1);
        break;
      }
    }
    var pos = 0;
    while (pos < best.length && !lt(key, partition, best[pos][0], best[pos][1])) pos++;
    best.splice(pos, 0, [key, partition, red]);
    if (best.length > keep) best.length = keep;
  }

  function exhaustive(lobby, keep, soft) {
    var n = lobby.length, all = Math.pow(2, n) - 1, sm = softMasks(soft, 31);
    var low = Math.floor(n / 2), high = Math.ceil(n / 2);
    var mean = lobby[0].mean, variance = lobby[0].variance, i;
    var totalMean = 0, totalVariance = 0;
    for (i = 0; i < n; i++) totalMean += lobby[i].mean;
    for (i = 0; i < n; i++) totalVariance += lobby[i].variance;
    var best = [], s = scale(), spread = Math.PI / 8 * s * s;
    var sizeMore = Math.log(high / Math.max(low, 1));
    var set = 1, steps = Math.pow(2, n - 1);
    for (var step = 0; step < steps; step++) {
      if (step > 0) {
        var bit = 0;
        while (((step / Math.pow(2, bit)) & 1) === 0) bit++;
        i = bit + 1;
        if ((set >> i) & 1) { mean -= lobby[i].mean; variance -= lobby[i].variance; }
        else { mean += lobby[i].mean; variance += lobby[i].variance; }
        set ^= 1 << i;
      }
      var size = 0;
      for (var t = set; t; t &= t - 1) size++;
      if (size !== low && size !== high) continue;
      var other = n - size;
      for (var side = 0; side < 2; side++) {
        var red = side === 0 ? set : all - set;
        var rn, bn, rm, rv;
        if (side === 0) { rn = size; bn = other; rm = mean; rv = variance; }
        else { rn = other; bn = size; rm = totalMean - mean; rv = totalVariance - variance; }
        var skill = rm / rn - (totalMean - rm) / bn;
        var v = rv / (rn * rn) + (totalVariance - rv) / (bn * bn);
        var sz = rn > bn ? sizeMore : rn < bn ? -sizeMore : 0;
        var k = 1 / Math.sqrt(1 + spread * v);
        var logit = k * (s * skill + params.coef[1] * sz + params.coef[2]);
        offer(best, keep, sm.active ? pDistance(Math.abs(logit)) + sm.penalty(red, 0) : Math.abs(logit), set, red);
      }
    }
    return best.map(function (f) {
      var redSet = [];
      for (var j = 0; j < n; j++) redSet.push(Math.floor(f[2] / Math.pow(2, j)) % 2 === 1);
      return splitOf(lobby, redSet);
    });
  }

  // `items` sorted by `keys[item]` (numbers, in IEEE order as Rust's total_cmp: -0 before 0),
  // stable: a radix sort on the bits, 16 at a time (a comparator sort of a million items took
  // seconds).
  var bits = new Float64Array(1), words = new Uint32Array(bits.buffer);
  function radixSort(items, keys) {
    var len = items.length, lo = new Uint32Array(len), hi = new Uint32Array(len), i, pass;
    for (i = 0; i < len; i++) {
      bits[0] = keys[items[i]];
      var l = words[0], h = words[1];
      if (h & 0x80000000) { l = ~l >>> 0; h = ~h >>> 0; } else { h = (h | 0x80000000) >>> 0; }
      lo[i] = l; hi[i] = h;
    }
    var order = new Uint32Array(len), next = new Uint32Array(len), count = new Uint32Array(65537);
    for (i = 0; i < len; i++) order[i] = i;
    if (len < 4096) {
      // Small: a stable comparator sort is cheaper than clearing the counts.
      order = Array.prototype.slice.call(order).sort(function (x, y) {
        return hi[x] - hi[y] || lo[x] - lo[y];
      });
    }
    for (pass = 0; pass < 4 && len >= 4096; pass++) {
      var word = pass < 2 ? lo : hi, shift = pass % 2 === 0 ? 0 : 16;
      count.fill(0);
      for (i = 0; i < len; i++) count[((word[order[i]] >>> shift) & 0xffff) + 1]++;
      for (i = 0; i < 65536; i++) count[i + 1] += count[i];
      for (i = 0; i < len; i++) next[count[(word[order[i]] >>> shift) & 0xffff]++] = order[i];
      var t = order; order = next; next = t;
    }
    var out = [];
    for (i = 0; i < len; i++) out.push(items[order[i]]);
    return { items: out, lo: lo, hi: hi, order: order };
  }

  // As exact::subsets: sums and masks of every subset of `members`, bit j for the j-th member
  // by (mean, variance, index), so that equal multisets get bitwise equal sums.
  function subsets(lobby, members) {
    var order = members.slice().sort(function (a, b) {
      return lobby[a].mean - lobby[b].mean || lobby[a].variance - lobby[b].variance || a - b;
    });
    var size = Math.pow(2, order.length);
    var mean = new Float64Array(size), variance = new Float64Array(size), mask = new Float64Array(size);
    var count = new Uint8Array(size);
    for (var m = 1; m < size; m++) {
      var top = 31 - Math.clz32(m), rest = m & ~(1 << top), c = lobby[order[top]];
      mean[m] = mean[rest] + c.mean;
      variance[m] = variance[rest] + c.variance;
      mask[m] = mask[rest] + Math.pow(2, order[top]);
      count[m] = count[rest] + 1;
    }
    return { mean: mean, variance: variance, mask: mask, count: count, size: size };
  }

  // As exact::meet_in_the_middle without rules (the page has none): the same walk, bound and
  // runs, so the same list as the exhaustive search would give.
  function meetInTheMiddle(lobby, keep, soft) {
    var n = lobby.length, i, rn;
    var lowLen = Math.floor(n / 2), all = Math.pow(2, n) - 1, sm = softMasks(soft, lowLen);
    var highUnit = Math.pow(2, lowLen);
    var s = scale(), spread = Math.PI / 8 * s * s, flat = !(s > 0);
    var totalMean = 0, totalVariance = 0;
    for (i = 0; i < n; i++) totalMean += lobby[i].mean;
    for (i = 0; i < n; i++) totalVariance += lobby[i].variance;
    var lowSize = Math.floor(n / 2), highSize = Math.ceil(n / 2);
    var sizeMore = Math.log(highSize / Math.max(lowSize, 1));
    function sizeTerm(rn, bn) { return rn > bn ? sizeMore : rn < bn ? -sizeMore : 0; }
    function u(rn, rm) {
      var bn = n - rn;
      var skill = rm / rn - (totalMean - rm) / bn;
      return s * skill + params.coef[1] * sizeTerm(rn, bn) + params.coef[2];
    }
    function cost(rn, rm, rv) {
      var bn = n - rn;
      var skill = rm / rn - (totalMean - rm) / bn;
      var v = rv / (rn * rn) + (totalVariance - rv) / (bn * bn);
      var k = 1 / Math.sqrt(1 + spread * v);
      return Math.abs(k * (s * skill + params.coef[1] * sizeTerm(rn, bn) + params.coef[2]));
    }
    var lowMembers = [], highMembers = [];
    for (i = 0; i < n; i++) (i < lowLen ? lowMembers : highMembers).push(i);
    var A = subsets(lobby, lowMembers), B = subsets(lobby, highMembers);
    // B's subsets by size, each sorted by (mean, variance, mask) (by mask alone when flat),
    // with the runs of equal sums.
    var buckets = [], c;
    for (c = 0; c <= highMembers.length; c++) buckets.push([]);
    for (var m = 0; m < B.size; m++) buckets[B.count[m]].push(m);
    var same = function (x, y) {
      return flat || (B.mean[x] === B.mean[y] && B.variance[x] === B.variance[y] &&
        !(B.mean[x] === 0 && 1 / B.mean[x] !== 1 / B.mean[y]));
    };
    buckets = buckets.map(function (list) {
      if (flat) {
        list = radixSort(list, B.mask).items;
      } else {
        // By mean, then each block of bitwise equal means by (variance, mask).
        var sorted = radixSort(list, B.mean), o = sorted.order;
        list = sorted.items;
        for (var from = 0, to; from < list.length; from = to) {
          for (to = from + 1; to < list.length && sorted.lo[o[to]] === sorted.lo[o[from]] &&
            sorted.hi[o[to]] === sorted.hi[o[from]]; to++);
          if (to - from > 1) {
            var block = list.slice(from, to).sort(function (x, y) {
              return B.variance[x] - B.variance[y] || B.mask[x] - B.mask[y];
            });
            for (var q = 0; q < block.length; q++) list[from + q] = block[q];
          }
        }
      }
      var len = list.length, start = new Int32Array(len), end = new Int32Array(len);
      for (var k = 1; k < len; k++) start[k] = same(list[k - 1], list[k]) ? start[k - 1] : k;
      if (len) end[len - 1] = len;
      for (k = len - 2; k >= 0; k--) end[k] = same(list[k], list[k + 1]) ? end[k + 1] : k + 1;
      return { list: list, start: start, end: end };
    });
    var groups = [];
    for (c = 0; c <= lowMembers.length; c++) groups.push([]);
    for (m = 0; m < A.size; m++) groups[A.count[m]].push(m);
    var best = [], sizes = n % 2 === 0 ? [n / 2] : [lowSize, highSize];
    groups.forEach(function (group, count) {
      group = radixSort(group, A.mean).items;
      sizes.forEach(function (rn) {
        var need = rn - count;
        if (need < 0 || need >= buckets.length) return;
        var bucket = buckets[need], list = bucket.list, len = list.length;
        var small = Math.min(rn, n - rn);
        var kMin = 1 / Math.sqrt(1 + spread * totalVariance / (small * small));
        var rnf = rn, bnf = n - rn;
        var zero = (s * totalMean / bnf - params.coef[1] * sizeTerm(rn, n - rn) - params.coef[2]) /
          (s * (1 / rnf + 1 / bnf));
        var split = 0;
        for (var g = group.length - 1; g >= 0; g--) {
          var a = group[g], aMean = A.mean[a], aVar = A.variance[a], aMask = A.mask[a];
          var zeroRed = aMask % 2 === 1;
          var offerRun = function (from, to) {
            var k, taken = 0, take = sm.active ? Infinity : keep;
            var one = function (b) {
              var red = aMask + B.mask[b];
              var partition = zeroRed ? red : all - red;
              var c = cost(rn, aMean + B.mean[b], aVar + B.variance[b]);
              if (sm.active) c = pDistance(c) + sm.penalty(aMask, B.mask[b] / highUnit);
              offer(best, keep, c, partition, red);
            };
            // The penalty differs within a run: all of it may enter.
            if (zeroRed) for (k = from; k < to && taken < take; k++, taken++) one(list[k]);
            else for (k = to - 1; k >= from && taken < take; k--, taken++) one(list[k]);
          };
          if (flat) {
            if (len) offerRun(0, len);
            continue;
          }
          var target = zero - aMean;
          while (split < len && B.mean[list[split]] < target) split++;
          var beyond = function (b) {
            var theta = best.length === keep ? best[keep - 1][0] : Infinity;
            var least = kMin * Math.abs(u(rn, aMean + B.mean[b]));
            return (sm.active ? pDistance(least) : least) > theta + TIE;
          };
          var at = split;
          while (at < len && !beyond(list[at])) { offerRun(at, bucket.end[at]); at = bucket.end[at]; }
          at = split;
          while (at > 0 && !beyond(list[at - 1])) { offerRun(bucket.start[at - 1], at); at = bucket.start[at - 1]; }
        }
      });
    });
    return best.map(function (f) {
      var redSet = [];
      for (var j = 0; j < n; j++) redSet.push(Math.floor(f[2] / Math.pow(2, j)) % 2 === 1);
      return splitOf(lobby, redSet);
    });
  }

  function cost(p) { return Math.abs(p - 0.5); }

  function localSearch(lobby, keep, soft) {
    var n = lobby.length, found = [], start = abba(lobby), active = softActive(soft);
    function evalSet(red) {
      var r = [], b = [];
      for (var i = 0; i < n; i++) (red[i] ? r : b).push(i);
      if (!r.length || !b.length) return Infinity;
      var penalty = active ? soft.unit * outOfPlace(soft, function (j) { return red[j]; }) : 0;
      return cost(pRed(lobby, r, b)) + penalty;
    }
    for (var shift = 0; shift < 8; shift++) {
      var red = [], i;
      for (i = 0; i < n; i++) red.push(false);
      start.red.forEach(function (j) { red[(j + shift * 7) % n] = true; });
      var current = evalSet(red);
      for (;;) {
        var bestMove = null;
        for (var a = 0; a < n; a++) {
          for (var b = a + 1; b <= n; b++) {
            var next = red.slice();
            if (b === n) next[a] = !next[a];
            else if (red[a] !== red[b]) { next[a] = !next[a]; next[b] = !next[b]; }
            else continue;
            var reds = 0;
            for (i = 0; i < n; i++) if (next[i]) reds++;
            if (reds !== Math.floor(n / 2) && reds !== Math.ceil(n / 2)) continue;
            var c = evalSet(next);
            if (c + TIE < current && (bestMove === null || c + TIE < bestMove[0])) bestMove = [c, a, b];
          }
        }
        if (bestMove === null) break;
        red[bestMove[1]] = !red[bestMove[1]];
        if (bestMove[2] < n) red[bestMove[2]] = !red[bestMove[2]];
        current = bestMove[0];
      }
      if (isFinite(current)) {
        var same = found.some(function (f) {
          return f[1].every(function (x, j) { return x === red[j]; }) ||
            f[1].every(function (x, j) { return x !== red[j]; });
        });
        if (!same) found.push([current, red]);
      }
    }
    // A stable sort, as Rust's sort_by.
    found = found.map(function (f, j) { return [f, j]; })
      .sort(function (x, y) { return x[0][0] - y[0][0] || x[1] - y[1]; })
      .map(function (x) { return x[0]; });
    return found.slice(0, keep).map(function (f) { return splitOf(lobby, f[1]); });
  }

  // As balance::balance without hard rules: {best, alternatives, exact, abba}.
  function searchSplits(lobby, soft, keep) {
    var n = lobby.length;
    if (n < 2) return { error: "name at least two players" };
    if (n > MAX_PLAYERS) return { error: "at most " + MAX_PLAYERS + " players can be balanced, not " + n };
    var found, exact = true;
    var sane = lobby.every(function (c) { return isFinite(c.mean) && isFinite(c.variance) && c.variance >= 0; });
    // As balance::balance: every split up to 12, meeting in the middle (the same list) beyond.
    if (n > 12 && n <= MEET_UP_TO && sane) found = meetInTheMiddle(lobby, keep + 1, soft);
    else if (n <= EXACT_UP_TO) found = exhaustive(lobby, keep + 1, soft);
    else { found = localSearch(lobby, keep + 1, soft); exact = false; }
    if (!found.length) return { error: "no split found" };
    return { best: found[0], alternatives: found.slice(1), exact: exact };
  }

  function pct(p) { return (p * 100).toFixed(1) + "%"; }
  function objective(split, soft) { return Math.abs(split.p - 0.5) + penaltyOf(soft, split); }
  function repeats(last, split) {
    var onRed = function (i) { return split.red.indexOf(i) >= 0; }, first = onRed(last.red[0]);
    return last.red.every(function (i) { return onRed(i) === first; }) &&
      last.blue.every(function (i) { return onRed(i) !== first; });
  }

  // As soft::propose without hard rules: the clan guard, then the last match.
  function balance(lobby, soft, last) {
    var ALTERNATIVES = 3, keep = last ? Math.max(ALTERNATIVES, AVOID_KEEP - 1) : ALTERNATIVES;
    var result = searchSplits(lobby, soft, keep), warnings = [], guard = settings.party_guard;
    if (result.error) return result;
    var beyond = function (p) { return guard < 1 && (p > guard || p < 1 - guard); };
    while (soft.mode === "together" && softActive(soft) && beyond(result.best.p)) {
      var best = result.best, whole = [], kept = [];
      soft.clans.forEach(function (c) {
        var first = best.red.indexOf(c.members[0]) >= 0;
        (c.members.every(function (i) { return (best.red.indexOf(i) >= 0) === first; }) ? whole : kept).push(c);
      });
      if (!whole.length) break;
      var without = { mode: soft.mode, clans: kept, unit: soft.unit };
      var other = searchSplits(lobby, without, keep);
      if (other.error || Math.abs(other.best.p - 0.5) >= Math.abs(best.p - 0.5)) break;
      warnings.push("clan " + whole.map(function (c) { return c.name; }).join(", ") +
        " kept together would make one side a sure winner (P(red wins) = " + pct(best.p) +
        ", beyond the party guard of " + pct(guard) + "): their clan rule is dropped (" +
        pct(other.best.p) + " without it)");
      soft = without;
      result = other;
    }
    var avoid = null, all = [result.best].concat(result.alternatives);
    if (last) {
      var within = settings.avoid_last_within / 100, bestCost = objective(all[0], soft);
      var chosen = 0, avoided, why, k = -1;
      for (var j = 0; j < all.length; j++) if (!repeats(last, all[j])) { k = j; break; }
      if (k === 0) { avoided = true; why = "the fairest split does not repeat them"; }
      else if (k > 0 && objective(all[k], soft) <= bestCost + within + 1e-12) {
        avoided = true; chosen = k;
        why = "the fairest split repeats them: the fairest that does not is proposed (P(red wins) = " +
          pct(all[k].p) + " instead of " + pct(all[0].p) + ")";
      } else if (k > 0) {
        avoided = false;
        why = "the fairest split repeats them, and the fairest that does not is more than " +
          (within * 100).toFixed(1) + " points less fair (P(red wins) = " + pct(all[k].p) + "): kept";
      } else {
        avoided = false;
        var lastCost = objective(all[all.length - 1], soft);
        if (all.length <= keep && result.exact) why = "every split the rules allow repeats them: kept the fairest";
        else if (lastCost > bestCost + within + 1e-12) why = "no split within " + (within * 100).toFixed(1) + " points of the fairest avoids them: kept the fairest";
        else why = "the " + all.length + " fairest splits all repeat them: kept the fairest";
      }
      var pick = all.splice(chosen, 1)[0];
      all.unshift(pick);
      avoid = { last: last, avoided: avoided, why: why };
    }
    return { best: all[0], alternatives: all.slice(1, 1 + ALTERNATIVES), exact: result.exact,
      abba: abba(lobby), random: randomSplit(lobby, seed === null ? seedOf(lobby) : seed),
      warnings: warnings, soft: soft, avoid: avoid };
  }

  // --- The page ---
  var wanted = [];
  // ?seed=N (as --seed N): the random split's seed; by default a hash of the names.
  var seed = (function () {
    var m = /[?&#]seed=(\d{1,10})(?:[&#]|$)/.exec(window.location.search + window.location.hash);
    return m && Number(m[1]) <= 4294967295 ? Number(m[1]) : null;
  })();
  function readUrl() {
    var m = /[?&#]players=([^&#]*)/.exec(window.location.search + window.location.hash);
    if (!m) return [];
    return m[1].split(",").map(function (part) {
      try { return decodeURIComponent(part.replace(/\+/g, " ")); } catch (e) { return ""; }
    }).filter(function (s) { return s.trim() !== ""; });
  }
  // ?clans=together|spread|off (as --clans) and ?avoid=1|0 (as --avoid-last); by default the
  // site's [balance] settings.
  function param(name, pattern) {
    var m = new RegExp("[?&#]" + name + "=(" + pattern + ")(?:[&#]|$)").exec(window.location.search + window.location.hash);
    return m ? m[1] : null;
  }
  var clans = param("clans", "together|spread|off") || settings.clans;
  var avoidLast = param("avoid", "[01]");
  avoidLast = avoidLast === null ? !!settings.avoid_last : avoidLast === "1";
  function writeUrl() {
    var q = wanted.length ? "?players=" + wanted.map(encodeURIComponent).join(",") : "";
    if (seed !== null) q += (q ? "&" : "?") + "seed=" + seed;
    if (clans !== settings.clans) q += (q ? "&" : "?") + "clans=" + clans;
    if (avoidLast !== !!settings.avoid_last) q += (q ? "&" : "?") + "avoid=" + (avoidLast ? 1 : 0);
    try { history.replaceState(null, "", window.location.pathname + q); } catch (e) { /* file:// in some browsers */ }
  }

  function text(tag, content, cls) {
    var node = document.createElement(tag);
    node.textContent = content;
    if (cls) node.className = cls;
    return node;
  }
  function percent(p) { return (100 * p).toFixed(1) + "%"; }

  function teamBlock(lobby, split, title) {
    var box = document.createElement("section");
    box.className = "balance-split";
    // The expected margin as TeamParams::expected_margin computes it.
    var margin = (params.margin || 0) * (2 * split.p - 1);
    // No margin learnt (a slope of 0: too few team scores, or none that follow p): say so
    // rather than print +0.0 beside a lopsided p.
    var marginText = params.margin
      ? ", expected margin (red − blue) " + (margin >= 0 ? "+" : "") + margin.toFixed(1)
      : " (no score margin learnt yet)";
    box.appendChild(text("h3", title + ": P(red wins) = " + percent(split.p) + marginText));
    box.setAttribute("data-margin", String(margin));
    box.setAttribute("data-p", String(split.p));
    var cols = document.createElement("div");
    cols.className = "balance-teams";
    [["red", split.red], ["blue", split.blue]].forEach(function (side) {
      var col = document.createElement("div");
      col.className = "balance-team team-" + side[0];
      col.appendChild(text("h4", side[0] === "red" ? "Red" : "Blue"));
      var ul = document.createElement("ul");
      ul.className = "balance-" + side[0];
      side[1].forEach(function (i) { ul.appendChild(text("li", lobby[i].name)); });
      col.appendChild(ul);
      cols.appendChild(col);
    });
    box.appendChild(cols);
    return box;
  }

  function update() {
    writeUrl();
    var lobby = [], errors = [], unknown = [];
    wanted.forEach(function (q) {
      var r = resolve(q), name, skill;
      if (r.error) { errors.push(r.error); return; }
      if (r.known !== undefined) {
        name = players[r.known].name;
        skill = { mean: players[r.known].skill, variance: players[r.known].variance };
      } else {
        name = r.fresh;
        skill = params.newcomer;
      }
      if (lobby.some(function (c) { return c.name === name; })) return;
      if (r.fresh !== undefined) unknown.push(name);
      lobby.push({ name: name, mean: strength(skill.mean), variance: skill.variance,
        id: r.known !== undefined ? r.known : null });
    });
    // As command::clan_groups: clans with two or more present, by name.
    var byClan = {};
    lobby.forEach(function (c, i) {
      var clan = c.id !== null ? players[c.id].clan : null;
      if (clan) (byClan[clan] = byClan[clan] || []).push(i);
    });
    var soft = { mode: clans, unit: settings.clan_penalty / 100,
      clans: Object.keys(byClan).sort(byName).filter(function (k) { return byClan[k].length >= 2; })
        .map(function (k) { return { name: k, members: byClan[k] }; }) };
    // As LastTeams::find: the last team match with two or more lobby players on each side.
    var last = null;
    if (avoidLast) {
      for (var m = 0; m < recent.length && !last; m++) {
        var sideOf = function (ids) {
          var out = [];
          lobby.forEach(function (c, i) { if (c.id !== null && ids.indexOf(c.id) >= 0) out.push(i); });
          return out;
        };
        var r = sideOf(recent[m][0]), b = sideOf(recent[m][1]);
        if (r.length >= 2 && b.length >= 2) last = { red: r, blue: b };
      }
    }
    var list = el("balance-lobby");
    list.textContent = "";
    wanted.forEach(function (q, k) {
      var li = text("li", plain(q));
      var x = text("button", "\u00d7");
      x.type = "button";
      x.setAttribute("aria-label", "Remove " + plain(q));
      x.addEventListener("click", function () { wanted.splice(k, 1); update(); });
      li.appendChild(x);
      list.appendChild(li);
    });
    var out = el("balance-result");
    out.textContent = "";
    el("balance-error").textContent = errors.join("\n");
    if (unknown.length) out.appendChild(text("p", "Never seen (rated as newcomers): " + unknown.join(", ")));
    var result = balance(lobby, soft, last);
    if (result.error) {
      out.appendChild(text("p", lobby.length
        ? result.error + "."
        : "Add the players present (two or more) to see the fairest teams."));
      out.setAttribute("data-state", "none");
      return;
    }
    var best = teamBlock(lobby, result.best, result.exact ? "Fairest teams" : "Fairest teams found (not every split tried)");
    best.id = "balance-best";
    out.appendChild(best);
    var names = function (ids) { return ids.map(function (i) { return lobby[i].name; }).join(", "); };
    var notes = document.createElement("ul");
    notes.className = "balance-notes";
    result.warnings.forEach(function (w) { notes.appendChild(text("li", "Warning: " + w, "balance-warning")); });
    if (result.soft.mode !== "off") {
      result.soft.clans.forEach(function (c) {
        var red = c.members.filter(function (i) { return result.best.red.indexOf(i) >= 0; }).length;
        var off = misplaced(result.soft.mode, red, c.members.length);
        notes.appendChild(text("li", "Clan " + c.name + " (" + result.soft.mode + "): " + names(c.members) +
          (off ? "; " + off + " out of place, " + (off * settings.clan_penalty).toFixed(1) + " points" : "; as the rule asks")));
      });
      if (!result.soft.clans.length && !result.warnings.length) notes.appendChild(text("li", "No two players here share a clan."));
    }
    if (result.avoid) {
      var a = result.avoid;
      notes.appendChild(text("li", "Last match's teams: " + names(a.last.red) + " against " + names(a.last.blue) + ": " + a.why + ".",
        a.avoided ? "balance-avoided" : "balance-kept"));
    } else if (avoidLast) {
      notes.appendChild(text("li", "Last match's teams: no recent team match had two or more of these players on each side."));
    }
    if (notes.childNodes.length) out.appendChild(notes);
    result.alternatives.forEach(function (s, k) {
      out.appendChild(teamBlock(lobby, s, "Alternative " + (k + 1)));
    });
    out.appendChild(teamBlock(lobby, result.abba, "Naive split by skill (ABBA)"));
    var random = teamBlock(lobby, result.random, "Random split (seed " + result.random.seed + ")");
    random.id = "balance-random";
    out.appendChild(random);
    out.setAttribute("data-state", "ready");
  }

  function add(names) {
    names.forEach(function (n) { if (plain(n) && wanted.indexOf(n) < 0) wanted.push(n); });
    update();
  }

  var search = el("balance-search"), hits = el("balance-hits");
  search.addEventListener("input", function () {
    hits.textContent = "";
    var q = plain(search.value).toLowerCase();
    if (!q) return;
    var shown = 0;
    for (var i = 0; i < players.length && shown < 12; i++) {
      if (!index[i].some(function (n) { return n.indexOf(q) >= 0; })) continue;
      shown++;
      (function (name) {
        var li = document.createElement("li");
        var b = text("button", "+ " + name);
        b.type = "button";
        b.addEventListener("click", function () { add([name]); search.value = ""; hits.textContent = ""; search.focus(); });
        li.appendChild(b);
        hits.appendChild(li);
      })(players[i].name);
    }
  });
  el("balance-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var pasted = el("balance-paste").value.split(/[\n,]/);
    if (search.value.trim()) pasted.push(search.value);
    el("balance-paste").value = "";
    search.value = "";
    hits.textContent = "";
    add(pasted);
  });
  el("balance-clear").addEventListener("click", function () { wanted = []; update(); });
  var clanBox = el("balance-clans"), avoidBox = el("balance-avoid");
  clanBox.value = clans;
  avoidBox.checked = avoidLast;
  clanBox.addEventListener("change", function () { clans = clanBox.value; update(); });
  avoidBox.addEventListener("change", function () { avoidLast = avoidBox.checked; update(); });
  wanted = readUrl();
  update();
})();
