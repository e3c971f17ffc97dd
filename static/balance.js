// balance.html: the team balancer in the browser. A port of src/balance (names resolved as
// `fragstats balance` resolves them; the hard rules and their conflicts, in the same words; the
// exhaustive search up to 24 players with the same tie-breaking; the meet-in-the-middle search up
// to 40 (src/balance/exact.rs, same order of operations, so the same sums and ties, and the same
// cut of the rules); the same local search beyond; the soft rules and guards of soft.rs; the swap
// mode), reading data/balance.js. The lobby, the rules and the options live in the URL, each name
// URI-encoded: ?players=A,B,C&lock=A:red&together=A+B;C+D&apart=A+C&from=A:red,B:blue&swaps=2
// (as --lock, --together, --apart, --from, --max-swaps), so a link shares them. Names are always
// set as text.
(function () {
  "use strict";
  var EXACT_UP_TO = 24, MEET_UP_TO = 40, MAX_PLAYERS = 256, TIE = 1e-9, AVOID_KEEP = 32;
  var data = window.FRAGSTATS_BALANCE;
  var el = function (id) { return document.getElementById(id); };
  if (!data || !data.params) {
    el("balance-error").textContent = "data/balance.js is missing: build the site again.";
    return;
  }
  if (data.format !== 2 || !data.names) {
    el("balance-error").textContent = "data/balance.js is from another fragstats version: build the site again.";
    return;
  }
  // The file is columnar (src/balance/data.rs, Columns): one object per player again, with the
  // CLI's numbers (skills in millionths, read as n / 1e6 as Rust does).
  var players = data.names.map(function (name, i) {
    return { name: name, names: [], skill: data.skills[i] / 1e6,
      variance: data.variance_values[data.variances[i]], clan: null };
  });
  (data.aliases || []).forEach(function (a) { players[a[0]].names = a[1]; });
  (data.clan_of || []).forEach(function (c) { players[c[0]].clan = data.clans[c[1]]; });
  var params = data.params, recent = data.recent || [];
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

  // --- Hard rules (as balance::Rules): {lock: [[i, "red"|"blue"]], together: [[a, b]],
  // apart: [[a, b]], soft}, by index into the lobby. ---

  // As balance::groups: union-find over the lobby for the together groups (root: the smallest).
  function groupsOf(n, together) {
    var parent = [], i;
    for (i = 0; i < n; i++) parent.push(i);
    function find(x) {
      while (parent[x] !== x) { parent[x] = parent[parent[x]]; x = parent[x]; }
      return x;
    }
    together.forEach(function (pair) {
      var ra = find(pair[0]), rb = find(pair[1]);
      if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    });
    var out = [];
    for (i = 0; i < n; i++) out.push(find(i));
    return out;
  }

  // As balance::conflicts: the first conflict among the hard rules and the team sizes, in the
  // same words, or null.
  function conflicts(lobby, rules) {
    var n = lobby.length, group = groupsOf(n, rules.together), locked = {}, k;
    var name = function (i) { return lobby[i].name; };
    for (k = 0; k < rules.lock.length; k++) {
      var i = rules.lock[k][0], side = rules.lock[k][1], had = locked[group[i]];
      if (had && had[0] !== side) {
        return i === had[1] ? name(i) + " is locked to both red and blue"
          : name(had[1]) + " and " + name(i) + " must play together but are locked to different sides";
      }
      locked[group[i]] = [side, i];
    }
    for (k = 0; k < rules.apart.length; k++) {
      var a = rules.apart[k][0], b = rules.apart[k][1];
      if (a === b) return name(a) + " cannot play apart from themself";
      if (group[a] === group[b]) return name(a) + " and " + name(b) + " must play apart but are kept together";
      var la = locked[group[a]], lb = locked[group[b]];
      if (la && lb && la[0] === lb[0]) return name(a) + " and " + name(b) + " must play apart but are locked to the same side";
    }
    var most = Math.ceil(n / 2), sizes = {}, roots = [];
    group.forEach(function (g, i) {
      if (!sizes[g]) { sizes[g] = []; roots.push(g); }
      sizes[g].push(i);
    });
    // (Rust walks a BTreeMap: roots in increasing order.)
    roots.sort(function (x, y) { return x - y; });
    for (k = 0; k < roots.length; k++) {
      var members = sizes[roots[k]];
      if (members.length > most) {
        return members.map(name).join(", ") + " must play together, but a team of " + n +
          " players has at most " + most;
      }
    }
    var sides = ["red", "blue"];
    for (k = 0; k < 2; k++) {
      var count = 0;
      roots.forEach(function (g) { if (locked[g] && locked[g][0] === sides[k]) count += sizes[g].length; });
      if (count > most) {
        return count + " players are locked to " + sides[k] + " (with those kept with them), but a team of " +
          n + " players has at most " + most;
      }
    }
    return null;
  }

  // As balance::Masks: the rules as bit masks (lobbies of at most 31 players here).
  function ruleMasks(rules) {
    var bit = function (i) { return 1 << i; }, m = { red: 0, blue: 0 };
    m.together = rules.together.map(function (p) { return bit(p[0]) | bit(p[1]); });
    m.apart = rules.apart.map(function (p) { return bit(p[0]) | bit(p[1]); });
    rules.lock.forEach(function (l) { if (l[1] === "red") m.red |= bit(l[0]); else m.blue |= bit(l[0]); });
    // As Masks::allows: `red` (a set of players) as the red team keeps every rule.
    m.allows = function (red) {
      if ((red & m.red) !== m.red || (red & m.blue) !== 0) return false;
      for (var k = 0; k < m.together.length; k++) {
        var t = red & m.together[k];
        if (t !== 0 && t !== m.together[k]) return false;
      }
      for (k = 0; k < m.apart.length; k++) if (popcount(red & m.apart[k]) !== 1) return false;
      return true;
    };
    return m;
  }

  // As exact::Cut: the rules seen from the two halves of the meet-in-the-middle search, the low
  // half the players below `lowLen` (bit i), the high half the others (bit i - lowLen).
  function cutOf(rules, lowLen) {
    var cut = { red: [0, 0], blue: [0, 0], inside: [], crossing: [] };
    var half = function (i) { return i < lowLen ? 0 : 1; };
    var bit = function (i) { return 1 << (i < lowLen ? i : i - lowLen); };
    rules.lock.forEach(function (l) { cut[l[1]][half(l[0])] |= bit(l[0]); });
    rules.together.map(function (p) { return [p[0], p[1], false]; })
      .concat(rules.apart.map(function (p) { return [p[0], p[1], true]; }))
      .forEach(function (r) {
        var a = r[0], b = r[1];
        if (half(a) === half(b)) cut.inside.push([half(a), bit(a) | bit(b), r[2]]);
        else if (half(a) === 0) cut.crossing.push([bit(a), bit(b), r[2]]);
        else cut.crossing.push([bit(b), bit(a), r[2]]);
      });
    // As Cut::allows: `red` (the red members of half `h`) keeps the rules inside the half.
    cut.allows = function (red, h) {
      if ((red & cut.red[h]) !== cut.red[h] || (red & cut.blue[h]) !== 0) return false;
      for (var k = 0; k < cut.inside.length; k++) {
        var rule = cut.inside[k];
        if (rule[0] !== h) continue;
        var on = popcount(red & rule[1]);
        if (rule[2] ? on !== 1 : on !== 0 && on !== popcount(rule[1])) return false;
      }
      return true;
    };
    // As Cut::signature: equal for both halves exactly when the crossing rules hold (a key).
    cut.signature = function (red, h) {
      var sig = "";
      for (var k = 0; k < cut.crossing.length; k++) {
        var c = cut.crossing[k];
        sig += h === 0 ? ((red & c[0]) !== 0 ? "1" : "0") : (((red & c[1]) !== 0) !== c[2] ? "1" : "0");
      }
      return sig;
    };
    return cut;
  }

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
  // As random::random_split: the players sorted by name, locked ones placed on their side, the
  // others shuffled and dealt to fill red up to its size (for an odd lobby, a draw says which
  // side is bigger); drawn again, up to DRAWS times, until the together and apart rules hold.
  // The side player k is locked to ("red", "blue"), or null (as Rules::locked).
  function lockOf(rules, k) {
    for (var l = 0; l < rules.lock.length; l++) if (rules.lock[l][0] === k) return rules.lock[l][1];
    return null;
  }
  // Whether every together group is on one side and every apart pair split, onRed(k) saying
  // whether player k is red (group: groupsOf's representatives).
  function keepsGroups(rules, group, onRed) {
    for (var k = 0; k < group.length; k++) if (onRed(k) !== onRed(group[k])) return false;
    return rules.apart.every(function (p) { return onRed(p[0]) !== onRed(p[1]); });
  }

  var DRAWS = 1000;
  function randomSplit(lobby, rules, seed) {
    var n = lobby.length, next = mulberry32(seed), i;
    var order = lobby.map(function (_, k) { return k; });
    order.sort(function (a, b) { return byName(lobby[a].name, lobby[b].name) || a - b; });
    var sideOf = function (k) { return lockOf(rules, k); };
    var lockedRed = order.filter(function (k) { return sideOf(k) === "red"; });
    var lockedBlue = order.filter(function (k) { return sideOf(k) === "blue"; }).length;
    var free = order.filter(function (k) { return sideOf(k) === null; });
    var group = groupsOf(n, rules.together);
    var keeps = function (red) { return keepsGroups(rules, group, function (k) { return red[k]; }); };
    var first = null;
    for (var draw = 0; draw < DRAWS; draw++) {
      var redSize = Math.floor(n / 2);
      if (n % 2 === 1 && (next() & 1) === 1) redSize++;
      // The locks may force which side is the bigger one.
      if (redSize < lockedRed.length || n - redSize < lockedBlue) redSize = n - redSize;
      var shuffled = free.slice();
      for (i = shuffled.length - 1; i >= 1; i--) {
        // Multiply-shift: exact in doubles (below 2^41).
        var j = Math.floor(next() * (i + 1) / 4294967296);
        var t = shuffled[i]; shuffled[i] = shuffled[j]; shuffled[j] = t;
      }
      var redSet = lobby.map(function () { return false; });
      var dealt = Math.min(Math.max(redSize - lockedRed.length, 0), free.length);
      lockedRed.concat(shuffled.slice(0, dealt)).forEach(function (k) { redSet[k] = true; });
      if (keeps(redSet)) {
        var split = splitOf(lobby, redSet);
        split.seed = seed;
        split.rulesKept = true;
        return split;
      }
      if (first === null) first = redSet;
    }
    var fallback = splitOf(lobby, first || lobby.map(function () { return false; }));
    fallback.seed = seed;
    fallback.rulesKept = false;
    return fallback;
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

  function exhaustive(lobby, keep, rules) {
    var n = lobby.length, all = Math.pow(2, n) - 1, sm = softMasks(rules.soft, 31), masks = ruleMasks(rules);
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
        if (!masks.allows(red)) continue;
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
  function meetInTheMiddle(lobby, keep, rules) {
    var n = lobby.length, i, rn;
    var lowLen = Math.floor(n / 2), all = Math.pow(2, n) - 1, sm = softMasks(rules.soft, lowLen);
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
    // As exact::Cut: subsets that break a rule inside their half are left out; the rest are
    // keyed by (size, signature of the rules crossing the cut), which must match.
    var cut = cutOf(rules, lowLen), crossing = cut.crossing.length > 0;
    var keyOf = function (count, mask, h) { return crossing ? count + "/" + cut.signature(mask, h) : count; };
    // B's subsets by key, each sorted by (mean, variance, mask) (by mask alone when flat),
    // with the runs of equal sums.
    var byKey = new Map(), m, key;
    for (m = 0; m < B.size; m++) {
      var shifted = B.mask[m] / highUnit;
      if (!cut.allows(shifted, 1)) continue;
      key = keyOf(B.count[m], shifted, 1);
      if (!byKey.has(key)) byKey.set(key, []);
      byKey.get(key).push(m);
    }
    var buckets = new Map();
    var same = function (x, y) {
      return flat || (B.mean[x] === B.mean[y] && B.variance[x] === B.variance[y] &&
        !(B.mean[x] === 0 && 1 / B.mean[x] !== 1 / B.mean[y]));
    };
    byKey.forEach(function (list, bucketKey) {
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
      buckets.set(bucketKey, { list: list, start: start, end: end });
    });
    // A's subsets by key, as B's.
    var groups = new Map();
    for (m = 0; m < A.size; m++) {
      if (!cut.allows(A.mask[m], 0)) continue;
      key = keyOf(A.count[m], A.mask[m], 0);
      if (!groups.has(key)) groups.set(key, { count: A.count[m], sig: crossing ? cut.signature(A.mask[m], 0) : "", list: [] });
      groups.get(key).list.push(m);
    }
    var best = [], sizes = n % 2 === 0 ? [n / 2] : [lowSize, highSize];
    groups.forEach(function (entry) {
      var count = entry.count, group = radixSort(entry.list, A.mean).items;
      sizes.forEach(function (rn) {
        var need = rn - count;
        var bucket = buckets.get(crossing ? need + "/" + entry.sig : need);
        if (need < 0 || !bucket) return;
        var list = bucket.list, len = list.length;
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

  // As balance::local_search: best single swap or move until none helps, from 8 shifted snake
  // starts repaired to the locks and together groups; whole groups move together.
  function localSearch(lobby, keep, rules) {
    var n = lobby.length, found = [], start = abba(lobby), soft = rules.soft, active = softActive(soft);
    var group = groupsOf(n, rules.together), i;
    function allows(red) {
      for (var k = 0; k < rules.lock.length; k++) if (red[rules.lock[k][0]] !== (rules.lock[k][1] === "red")) return false;
      return keepsGroups(rules, group, function (j) { return red[j]; });
    }
    function evalSet(red) {
      var r = [], b = [];
      for (var k = 0; k < n; k++) (red[k] ? r : b).push(k);
      if (!r.length || !b.length) return Infinity;
      var penalty = active ? soft.unit * outOfPlace(soft, function (j) { return red[j]; }) : 0;
      return cost(pRed(lobby, r, b)) + penalty;
    }
    for (var shift = 0; shift < 8; shift++) {
      var red = [];
      for (i = 0; i < n; i++) red.push(false);
      start.red.forEach(function (j) { red[(j + shift * 7) % n] = true; });
      // Repair to the rules where a simple fix exists: locks first, then groups follow their root.
      rules.lock.forEach(function (l) { red[l[0]] = l[1] === "red"; });
      for (i = 0; i < n; i++) red[i] = red[group[i]];
      var current = allows(red) ? evalSet(red) : Infinity;
      for (;;) {
        var bestMove = null;
        for (var a = 0; a < n; a++) {
          for (var b = a + 1; b <= n; b++) {
            var next = red.slice();
            if (b === n) next[a] = !next[a];
            else if (red[a] !== red[b]) { next[a] = !next[a]; next[b] = !next[b]; }
            else continue;
            // Whole groups move together.
            for (i = 0; i < n; i++) {
              if (group[i] === group[a]) next[i] = next[a];
              else if (b < n && group[i] === group[b]) next[i] = next[b];
            }
            var reds = 0;
            for (i = 0; i < n; i++) if (next[i]) reds++;
            if (reds !== Math.floor(n / 2) && reds !== Math.ceil(n / 2) || !allows(next)) continue;
            var c = evalSet(next);
            if (c + TIE < current && (bestMove === null || c + TIE < bestMove[0])) bestMove = [c, a, b];
          }
        }
        if (bestMove === null) break;
        a = bestMove[1]; b = bestMove[2];
        red[a] = !red[a];
        if (b < n) red[b] = !red[b];
        for (i = 0; i < n; i++) {
          if (group[i] === group[a]) red[i] = red[a];
          else if (b < n && group[i] === group[b]) red[i] = red[b];
        }
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
  // As balance::balance: {best, alternatives, exact} or {error} (a conflict among the hard
  // rules, named as the CLI names it).
  function searchSplits(lobby, rules, keep) {
    var n = lobby.length;
    if (n < 2) return { error: "name at least two players" };
    if (n > MAX_PLAYERS) return { error: "at most " + MAX_PLAYERS + " players can be balanced, not " + n };
    var conflict = conflicts(lobby, rules);
    if (conflict) return { error: conflict, conflict: true };
    var found, exact = true;
    var sane = lobby.every(function (c) { return isFinite(c.mean) && isFinite(c.variance) && c.variance >= 0; });
    // As exact::meet_in_the_middle, which does not apply beyond 64 rules across its cut.
    var meet = n > 12 && n <= MEET_UP_TO && sane && cutOf(rules, Math.floor(n / 2)).crossing.length <= 64;
    // As balance::balance: every split up to 12, meeting in the middle (the same list) beyond.
    if (meet) found = meetInTheMiddle(lobby, keep + 1, rules);
    else if (n <= EXACT_UP_TO) found = exhaustive(lobby, keep + 1, rules);
    else { found = localSearch(lobby, keep + 1, rules); exact = false; }
    if (!found.length) return { error: "no split keeps every rule (the apart rules cannot all hold with even teams)" };
    return { best: found[0], alternatives: found.slice(1), exact: exact };
  }

  function pct(p) { return (p * 100).toFixed(1) + "%"; }
  function objective(split, soft) { return Math.abs(split.p - 0.5) + penaltyOf(soft, split); }
  function repeats(last, split) {
    var onRed = function (i) { return split.red.indexOf(i) >= 0; }, first = onRed(last.red[0]);
    return last.red.every(function (i) { return onRed(i) === first; }) &&
      last.blue.every(function (i) { return onRed(i) !== first; });
  }

  // As soft::propose: the search under the hard and soft rules, the clan guard, the guard on
  // hard together groups, then the last match.
  function balance(lobby, rules, last) {
    var ALTERNATIVES = 3, keep = last ? Math.max(ALTERNATIVES, AVOID_KEEP - 1) : ALTERNATIVES;
    var result = searchSplits(lobby, rules, keep), warnings = [], guard = settings.party_guard;
    if (result.error) return result;
    var soft = rules.soft, withSoft = function (s) {
      return { lock: rules.lock, together: rules.together, apart: rules.apart, soft: s };
    };
    var beyond = function (p) { return guard < 1 && (p > guard || p < 1 - guard); };
    while (soft.mode === "together" && softActive(soft) && beyond(result.best.p)) {
      var best = result.best, whole = [], kept = [];
      soft.clans.forEach(function (c) {
        var first = best.red.indexOf(c.members[0]) >= 0;
        (c.members.every(function (i) { return (best.red.indexOf(i) >= 0) === first; }) ? whole : kept).push(c);
      });
      if (!whole.length) break;
      var without = { mode: soft.mode, clans: kept, unit: soft.unit };
      var other = searchSplits(lobby, withSoft(without), keep);
      if (other.error || Math.abs(other.best.p - 0.5) >= Math.abs(best.p - 0.5)) break;
      warnings.push("clan " + whole.map(function (c) { return c.name; }).join(", ") +
        " kept together would make one side a sure winner (P(red wins) = " + pct(best.p) +
        ", beyond the party guard of " + pct(guard) + "): their clan rule is dropped (" +
        pct(other.best.p) + " without it)");
      soft = without;
      result = other;
    }
    // The guard on hard groups: never broken, but named.
    if (beyond(result.best.p) && rules.together.length) {
      var group = groupsOf(lobby.length, rules.together);
      var roots = rules.together.map(function (p) { return group[p[0]]; }).sort(function (x, y) { return x - y; })
        .filter(function (r, i, list) { return i === 0 || list[i - 1] !== r; });
      roots.forEach(function (root) {
        var loose = withSoft(soft);
        loose.together = rules.together.filter(function (p) { return group[p[0]] !== root && group[p[1]] !== root; });
        var freed = searchSplits(lobby, loose, 0);
        if (freed.error || beyond(freed.best.p)) return;
        var members = lobby.map(function (c) { return c.name; }).filter(function (_, i) { return group[i] === root; });
        warnings.push("keeping " + members.join(", ") + " together makes one side a sure winner: P(red wins) = " +
          pct(result.best.p) + " (the party guard is " + pct(guard) + "); without that rule the fairest split gives " +
          pct(freed.best.p));
      });
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
      abba: abba(lobby), random: randomSplit(lobby, rules, seed === null ? seedOf(lobby) : seed),
      warnings: warnings, soft: soft, avoid: avoid };
  }

  // As balance::subsets: every k-subset of 0..n, in lexicographic order.
  function kSubsets(n, k) {
    var out = [], pick = [], i;
    if (k > n) return out;
    for (i = 0; i < k; i++) pick.push(i);
    for (;;) {
      out.push(pick.slice());
      for (i = k - 1; i >= 0 && pick[i] >= n - k + i; i--);
      if (i < 0) return out;
      pick[i]++;
      for (var j = i + 1; j < k; j++) pick[j] = pick[j - 1] + 1;
    }
  }

  // As balance::swaps: from the teams as they are, the fewest exchanges (at most maxSwaps) that
  // bring P(red wins) closest to 50%; more swaps only when they gain MIN_GAIN more. Locked
  // players never move; together and apart must hold after. Returned in the order to make
  // them (the fairest next first), each with the cumulative P(red wins).
  var MIN_GAIN = 0.01;
  // As SWAP_EXCHANGES, choose and swap_limit in src/balance/mod.rs.
  var SWAP_EXCHANGES = 100000;
  function choose(n, k) {
    var c = 1;
    for (var j = 0; j < k; j++) c = c * (n - j) / (j + 1);
    return c;
  }
  function swapLimit(reds, blues, maxSwaps) {
    var most = Math.min(maxSwaps, reds, blues), tried = 0;
    for (var k = 1; k <= most; k++) {
      tried += Math.round(choose(reds, k)) * Math.round(choose(blues, k));
      if (k > 1 && tried > SWAP_EXCHANGES) return k - 1;
    }
    return most;
  }
  function swaps(lobby, rules, red, blue, maxSwaps) {
    var n = lobby.length, group = groupsOf(n, rules.together), soft = rules.soft;
    var movable = function (i) { return lockOf(rules, i) === null; };
    var reds = red.filter(movable), blues = blue.filter(movable);
    var valid = function (r) { return keepsGroups(rules, group, function (i) { return r.indexOf(i) >= 0; }); };
    var objectiveOf = function (r, b) {
      var penalty = softActive(soft) ? soft.unit * outOfPlace(soft, function (i) { return r.indexOf(i) >= 0; }) : 0;
      return cost(pRed(lobby, r, b)) + penalty;
    };
    var best = [objectiveOf(red, blue), []];
    for (var k = 1; k <= swapLimit(reds.length, blues.length, maxSwaps); k++) {
      var bestK = null, outs = kSubsets(reds.length, k), backs = kSubsets(blues.length, k);
      outs.forEach(function (out) {
        backs.forEach(function (back) {
          var gone = out.map(function (i) { return reds[i]; }), come = back.map(function (i) { return blues[i]; });
          var r = red.filter(function (i) { return gone.indexOf(i) < 0; }).concat(come);
          var b = blue.filter(function (i) { return come.indexOf(i) < 0; }).concat(gone);
          if (!valid(r)) return;
          var c = objectiveOf(r, b);
          if (bestK === null || c + TIE < bestK[0]) {
            bestK = [c, gone.map(function (g, j) { return [g, come[j]]; })];
          }
        });
      });
      if (bestK !== null && bestK[0] + MIN_GAIN <= best[0]) best = bestK;
    }
    var r = red.slice(), b = blue.slice(), pairs = best[1], out = [];
    var apply = function (r, b, pair) {
      r.splice(r.indexOf(pair[0]), 1); r.push(pair[1]);
      b.splice(b.indexOf(pair[1]), 1); b.push(pair[0]);
    };
    while (pairs.length) {
      var pick = [Infinity, 0];
      pairs.forEach(function (pair, j) {
        var r2 = r.slice(), b2 = b.slice();
        apply(r2, b2, pair);
        var c = objectiveOf(r2, b2);
        if (c + TIE < pick[0]) pick = [c, j];
      });
      var pair = pairs.splice(pick[1], 1)[0];
      apply(r, b, pair);
      out.push({ toBlue: pair[0], toRed: pair[1], p: pRed(lobby, r, b) });
    }
    return out;
  }

  // --- The page ---
  // The lobby as typed (queries), and the rules by resolved name: locks [[name, side]], together
  // groups [[name, ...]], apart pairs [[name, name]], the teams as they are now [[name, side]].
  var wanted = [], locks = [], together = [], apart = [], now = [], maxSwaps = 2, picked = {};
  var MAX_SWAPS = 4;
  var address = function () { return window.location.search + window.location.hash; };
  // The parts of the link that could not be read, each as "name=value (what to write)": shown
  // above the result instead of being dropped without a word.
  var ignored = [];
  function ignore(name, raw, hint) {
    ignored.push(name + "=" + decode(raw, false) + " (" + hint + ")");
  }
  // A parameter given with a value `pattern` does not match is reported, not silently defaulted.
  function checked(name, pattern, hint) {
    var got = param(name, "[^&#]*");
    var value = param(name, pattern);
    if (got !== null && value === null) ignore(name, got, hint);
    return value;
  }
  // ?seed=N (as --seed N): the random split's seed; by default a hash of the names.
  var seed = (function () {
    var m = checked("seed", "\\d{1,10}", "a number, 0 to 4294967295");
    if (m !== null && Number(m) > 4294967295) ignore("seed", m, "a number, 0 to 4294967295");
    return m !== null && Number(m) <= 4294967295 ? Number(m) : null;
  })();
  function param(name, pattern) {
    var m = new RegExp("[?&#]" + name + "=(" + pattern + ")(?:[&#]|$)").exec(address());
    return m ? m[1] : null;
  }
  // One URI component; `plus` reads "+" as a space (as a form does), where it is no separator.
  function decode(part, plus) {
    try { return decodeURIComponent(plus ? part.replace(/\+/g, " ") : part); } catch (e) { return ""; }
  }
  function listParam(name, sep) {
    var raw = param(name, "[^&#]*");
    return raw ? raw.split(sep).filter(function (s) { return s !== ""; }) : [];
  }
  // name:side,name:side (lock=, from=).
  function sidesParam(name) {
    var out = [];
    listParam(name, ",").forEach(function (item) {
      var at = item.lastIndexOf(":"), who = decode(item.slice(0, at), true), side = item.slice(at + 1);
      if (at > 0 && plain(who) && (side === "red" || side === "blue")) out.push([who, side]);
      else ignore(name, item, "write name:red or name:blue");
    });
    return out;
  }
  // a+b;c+d (together=, apart=).
  function groupsParam(name, size) {
    return listParam(name, ";").filter(function (raw) {
      var g = raw.split("+").map(function (n) { return decode(n, false); }).filter(function (n) { return plain(n); });
      var fits = g.length >= 2 && (!size || g.length === size);
      if (!fits) ignore(name, raw, size ? "name exactly " + size + " players, a+b" : "name two or more players, a+b+c");
      return fits;
    }).map(function (g) {
      return g.split("+").map(function (n) { return decode(n, false); }).filter(function (n) { return plain(n); });
    });
  }
  function readUrl() {
    wanted = listParam("players", ",").map(function (part) { return decode(part, true); })
      .filter(function (s) { return s.trim() !== ""; });
    locks = sidesParam("lock");
    now = sidesParam("from");
    together = groupsParam("together", 0);
    apart = groupsParam("apart", 2);
    var s = checked("swaps", "[0-9]{1,2}", "a number of swaps, 1 to " + MAX_SWAPS);
    maxSwaps = s === null ? 2 : Math.max(1, Math.min(Number(s), MAX_SWAPS));
    // A player a rule names but `players=` does not (a link written by hand) joins the lobby
    // list, in the order the command adds such names (after the others), so it can be removed.
    var nameOf = function (q) {
      var r = resolve(q);
      return r.known !== undefined ? players[r.known].name : r.fresh;
    };
    var present = wanted.map(nameOf);
    var more = now.concat(locks).map(function (l) { return l[0]; });
    together.concat(apart).forEach(function (g) { more = more.concat(g); });
    more.forEach(function (name) {
      var resolved = nameOf(name);
      if (resolved !== undefined && present.indexOf(resolved) < 0) { wanted.push(name); present.push(resolved); }
    });
  }
  // ?clans=together|spread|off (as --clans) and ?avoid=1|0 (as --avoid-last / --no-avoid-last);
  // by default the site's [balance] settings.
  var clans = checked("clans", "together|spread|off", "together, spread or off") || settings.clans;
  var avoidLast = checked("avoid", "[01]", "1 or 0");
  avoidLast = avoidLast === null ? !!settings.avoid_last : avoidLast === "1";
  function writeUrl() {
    var parts = [], enc = encodeURIComponent;
    var sides = function (list) { return list.map(function (l) { return enc(l[0]) + ":" + l[1]; }).join(","); };
    var groups = function (list) {
      return list.map(function (g) { return g.map(enc).join("+"); }).join(";");
    };
    if (wanted.length) parts.push("players=" + wanted.map(enc).join(","));
    if (locks.length) parts.push("lock=" + sides(locks));
    if (together.length) parts.push("together=" + groups(together));
    if (apart.length) parts.push("apart=" + groups(apart));
    if (now.length) parts.push("from=" + sides(now));
    if (now.length && maxSwaps !== 2) parts.push("swaps=" + maxSwaps);
    if (seed !== null) parts.push("seed=" + seed);
    if (clans !== settings.clans) parts.push("clans=" + clans);
    if (avoidLast !== !!settings.avoid_last) parts.push("avoid=" + (avoidLast ? 1 : 0));
    var q = parts.length ? "?" + parts.join("&") : "";
    try { history.replaceState(null, "", window.location.pathname + q); } catch (e) { /* file:// in some browsers */ }
  }

  function text(tag, content, cls) {
    var node = document.createElement(tag);
    node.textContent = content;
    if (cls) node.className = cls;
    return node;
  }
  function percent(p) { return (100 * p).toFixed(1) + "%"; }
  function whole(p) { return (100 * p).toFixed(0) + "%"; }

  // A strength as the card shows it: signed, two decimals (the model's unit, θ).
  function signed(x) { return (x >= 0 ? "+" : "\u2212") + Math.abs(x).toFixed(2); }

  // Why the proposals carry no expected score margin (params.margin is 0), from what the build
  // learnt it from (TeamParams::margin_basis).
  function marginWhy() {
    var b = params.margin_basis;
    if (!b) return "No expected score margin: this data/balance.js does not say what it was learnt from.";
    var what = b.game + (b.gametype ? " (" + b.gametype + ")" : "");
    if (!b.matches) {
      return "No expected score margin: it is learnt from the final scores of " + what +
        " team matches (the game with the most team results here), and none has a final score yet.";
    }
    if (!(b.slope > 0)) {
      return "No expected score margin: in the " + b.matches + " " + b.game + " team match" +
        (b.matches === 1 ? "" : "es") + " with a final score, the favourite did not win by more than the underdog " +
        "(the margin's slope on the prediction is " + b.slope.toFixed(2) + "), so no margin is predicted; " +
        "P(red wins) still is.";
    }
    return "No expected score margin: the " + what + " matches' final scores add up to 0.";
  }

  // A proposal as a card: red | blue side by side (stacked on a phone), each side's players
  // with their team strength, the side's mean strength (what the model compares) and its
  // chance to win.
  function teamBlock(lobby, split, title) {
    var box = document.createElement("section");
    box.className = "balance-split";
    // The expected margin as TeamParams::expected_margin computes it.
    var margin = (params.margin || 0) * (2 * split.p - 1);
    // No margin learnt (a slope of 0): the note under the fairest teams says why, rather than
    // +0.0 beside a lopsided p.
    var marginText = params.margin
      ? ", expected margin (red \u2212 blue) " + (margin >= 0 ? "+" : "") + margin.toFixed(1)
      : "";
    box.appendChild(text("h3", title + ": P(red wins) = " + percent(split.p) + marginText));
    box.setAttribute("data-margin", String(margin));
    box.setAttribute("data-p", String(split.p));
    var cols = document.createElement("div");
    cols.className = "balance-teams";
    [["red", split.red, split.p], ["blue", split.blue, 1 - split.p]].forEach(function (side) {
      var col = document.createElement("div");
      col.className = "balance-team team-" + side[0];
      var head = text("h4", side[0] === "red" ? "Red" : "Blue");
      head.appendChild(text("span", " " + percent(side[2]) + " to win", "balance-chance"));
      col.appendChild(head);
      var ul = document.createElement("ul");
      ul.className = "balance-" + side[0];
      var sum = 0;
      side[1].forEach(function (i) {
        var li = document.createElement("li");
        li.appendChild(text("span", lobby[i].name, "balance-name"));
        li.appendChild(text("span", lobby[i].id === null ? "new " + signed(lobby[i].mean) : signed(lobby[i].mean), "balance-skill"));
        ul.appendChild(li);
        sum += lobby[i].mean;
      });
      col.appendChild(ul);
      var strengthLine = text("p", "Team strength ", "balance-strength");
      strengthLine.appendChild(text("b", side[1].length ? signed(sum / side[1].length) : "\u2013"));
      strengthLine.appendChild(document.createTextNode(" (mean of " + side[1].length + ")"));
      col.appendChild(strengthLine);
      cols.appendChild(col);
    });
    box.appendChild(cols);
    return box;
  }

  // A select of "", red, blue, each option shown as `words` says.
  function sideSelect(value, label, words, change) {
    var select = document.createElement("select");
    [["", words[0]], ["red", words[1]], ["blue", words[2]]].forEach(function (o) {
      var option = text("option", o[1]);
      option.value = o[0];
      select.appendChild(option);
    });
    select.value = value || "";
    select.className = value ? "balance-set team-" + value : "";
    select.setAttribute("aria-label", label);
    select.addEventListener("change", function () { change(select.value || null); });
    return select;
  }
  function sideIn(list, name) {
    for (var k = 0; k < list.length; k++) if (list[k][0] === name) return list[k][1];
    return null;
  }
  function setSide(list, name, side) {
    var out = list.filter(function (l) { return l[0] !== name; });
    if (side) out.push([name, side]);
    return out;
  }
  // Forgets a resolved name in every rule.
  function forget(name) {
    locks = setSide(locks, name, null);
    now = setSide(now, name, null);
    together = together.map(function (g) { return g.filter(function (n) { return n !== name; }); })
      .filter(function (g) { return g.length >= 2; });
    apart = apart.filter(function (g) { return g.indexOf(name) < 0; });
    delete picked[name];
  }

  // What the page shows for its state (the players wanted, the rules, the teams as they are):
  // the lobby, the names that did not resolve, the rules as indices, the last match's teams and
  // the search's result. Touches no element, so a test can run it with no page.
  function compute() {
    var lobby = [], errors = [], unknown = [];
    // As command::Lobby::add: the index of the player `query` means, added if not present yet.
    var add = function (query) {
      var r = resolve(query), name, skill;
      if (r.error) { if (errors.indexOf(r.error) < 0) errors.push(r.error); return -1; }
      if (r.known !== undefined) {
        name = players[r.known].name;
        skill = { mean: players[r.known].skill, variance: players[r.known].variance };
      } else {
        name = r.fresh;
        skill = params.newcomer;
      }
      for (var k = 0; k < lobby.length; k++) if (lobby[k].name === name) return k;
      if (r.fresh !== undefined) unknown.push(name);
      lobby.push({ name: name, mean: strength(skill.mean), variance: skill.variance,
        id: r.known !== undefined ? r.known : null });
      return lobby.length - 1;
    };
    // In the command's order: the teams as they are (red, then blue), the names, the locks, the
    // together groups, the apart pairs.
    var nowRed = [], nowBlue = [];
    // (A name that does not resolve is reported below; one player named twice counts once.)
    var place = function (list, name) {
      var i = add(name);
      if (i < 0 || list.indexOf(i) >= 0) return;
      if (nowRed.indexOf(i) >= 0 || nowBlue.indexOf(i) >= 0) {
        var both = "a player is on both teams now: " + lobby[i].name;
        if (errors.indexOf(both) < 0) errors.push(both);
        return;
      }
      list.push(i);
    };
    now.forEach(function (l) { if (l[1] === "red") place(nowRed, l[0]); });
    now.forEach(function (l) { if (l[1] === "blue") place(nowBlue, l[0]); });
    var shown = wanted.map(add);
    var rules = { lock: [], together: [], apart: [], soft: null };
    locks.forEach(function (l) { var i = add(l[0]); if (i >= 0) rules.lock.push([i, l[1]]); });
    together.forEach(function (g) {
      var ids = g.map(add).filter(function (i) { return i >= 0; });
      for (var k = 1; k < ids.length; k++) rules.together.push([ids[k - 1], ids[k]]);
    });
    apart.forEach(function (g) {
      var ids = g.map(add);
      if (ids[0] >= 0 && ids[1] >= 0) rules.apart.push([ids[0], ids[1]]);
    });
    // As command::clan_groups: clans with two or more present, by name.
    var byClan = {};
    lobby.forEach(function (c, i) {
      var clan = c.id !== null ? players[c.id].clan : null;
      if (clan) (byClan[clan] = byClan[clan] || []).push(i);
    });
    rules.soft = { mode: clans, unit: settings.clan_penalty / 100,
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
    return { lobby: lobby, errors: errors, unknown: unknown, shown: shown, rules: rules,
      nowRed: nowRed, nowBlue: nowBlue, last: last, result: balance(lobby, rules, last) };
  }

  function update() {
    writeUrl();
    var state = compute(), lobby = state.lobby, rules = state.rules, result = state.result;
    var errors = state.errors, unknown = state.unknown, nowRed = state.nowRed, nowBlue = state.nowBlue;
    drawLobby(lobby, state.shown);
    drawRules();
    var out = el("balance-result");
    out.textContent = "";
    el("balance-error").textContent = errors.join("\n");
    if (unknown.length) out.appendChild(text("p", "Never seen (rated as newcomers): " + unknown.join(", ")));
    if (result.error) {
      var why = text("p", lobby.length
        ? (result.conflict ? "These rules cannot all hold: " : "") + result.error + "."
        : "Add the players present (two or more) to see the fairest teams.");
      if (result.conflict) {
        why.className = "balance-conflict";
        why.setAttribute("data-conflict", result.error);
      }
      out.appendChild(why);
      out.setAttribute("data-state", result.conflict ? "conflict" : "none");
      return;
    }
    var names = function (ids) { return ids.map(function (i) { return lobby[i].name; }).join(", "); };
    var warnings = result.warnings.slice();
    // Swap mode (as --from): every player of the lobby has a side now.
    if (now.length) out.appendChild(swapBlock(lobby, rules, nowRed, nowBlue, warnings));
    var best = teamBlock(lobby, result.best, result.exact ? "Fairest teams" : "Fairest teams found (not every split tried)");
    best.id = "balance-best";
    out.appendChild(best);
    if (!params.margin) out.appendChild(text("p", marginWhy(), "balance-margin-why muted"));
    var notes = document.createElement("ul");
    notes.className = "balance-notes";
    warnings.forEach(function (w) { notes.appendChild(text("li", "Warning: " + w, "balance-warning")); });
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
    var random = teamBlock(lobby, result.random, "Random split (seed " + result.random.seed + ")" +
      (result.random.rulesKept ? "" : " (breaks the together/apart rules: no random draw kept them)"));
    random.id = "balance-random";
    out.appendChild(random);
    out.setAttribute("data-state", "ready");
  }

  // The swaps from the teams as they are (as the command's --from), or why there are none;
  // adds the command's warning when an early swap alone would leave the teams less fair.
  function swapBlock(lobby, rules, red, blue, warnings) {
    var box = document.createElement("section");
    box.id = "balance-swaps";
    var missing = lobby.filter(function (_, i) { return red.indexOf(i) < 0 && blue.indexOf(i) < 0; });
    if (missing.length || !red.length || !blue.length) {
      box.appendChild(text("p", missing.length
        ? "To see the fewest swaps, say who plays on which side now (\u201cNow\u201d): " +
          missing.map(function (c) { return c.name; }).join(", ") + " have no side yet."
        : "To see the fewest swaps, put at least one player on each side now (\u201cNow\u201d).", "balance-swaps-missing"));
      box.setAttribute("data-state", "incomplete");
      return box;
    }
    var current = { red: red, blue: blue, p: pRed(lobby, red, blue) };
    var list = swaps(lobby, rules, red, blue, maxSwaps);
    // As command.rs: say so when fewer swaps were searched than asked.
    var movableCount = function (side) {
      return side.filter(function (i) { return lockOf(rules, i) === null; }).length;
    };
    var asked = Math.min(maxSwaps, movableCount(red), movableCount(blue));
    var limit = swapLimit(movableCount(red), movableCount(blue), maxSwaps);
    if (limit < asked) {
      warnings.push("searched up to " + limit + " swaps, not " + asked + ": more would try over " + SWAP_EXCHANGES + " exchanges");
    }
    var start = Math.abs(current.p - 0.5);
    for (var k = 0; k + 1 < list.length; k++) {
      if (Math.abs(list[k].p - 0.5) > start) {
        warnings.push("make all " + list.length + " swaps: after swap " + (k + 1) + " alone P(red wins) would be " +
          whole(list[k].p) + ", farther from 50% than now (" + whole(current.p) + ")");
        break;
      }
    }
    var block = teamBlock(lobby, current, "Teams as they are now");
    block.id = "balance-current";
    box.appendChild(block);
    box.appendChild(text("h3", "Fewest swaps (at most " + maxSwaps + ")"));
    if (!list.length) {
      box.appendChild(text("p", "No swap brings P(red wins) " + MIN_GAIN * 100 + " point or more closer to 50%: keep the teams.", "balance-no-swap"));
    }
    var ol = document.createElement("ol");
    ol.className = "balance-swap-list";
    list.forEach(function (s) {
      var li = text("li", lobby[s.toBlue].name + " to blue, " + lobby[s.toRed].name + " to red: P(red wins) = " + percent(s.p));
      li.setAttribute("data-to-blue", lobby[s.toBlue].name);
      li.setAttribute("data-to-red", lobby[s.toRed].name);
      li.setAttribute("data-p", String(s.p));
      ol.appendChild(li);
    });
    box.appendChild(ol);
    box.setAttribute("data-state", "ready");
    return box;
  }

  // The lobby: per player a pick box (for together/apart), a lock and the side played now.
  function drawLobby(lobby, shown) {
    var list = el("balance-lobby");
    list.textContent = "";
    wanted.forEach(function (q, k) {
      var i = shown[k], name = i >= 0 ? lobby[i].name : plain(q);
      var li = document.createElement("li");
      var pick = document.createElement("label");
      pick.className = "balance-pick";
      var box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !!picked[name];
      box.disabled = i < 0;
      box.addEventListener("change", function () { if (box.checked) picked[name] = true; else delete picked[name]; });
      pick.appendChild(box);
      pick.appendChild(text("span", name));
      li.appendChild(pick);
      if (i >= 0) {
        var controls = document.createElement("span");
        controls.className = "balance-controls";
        controls.appendChild(sideSelect(sideIn(locks, name), "Lock " + name + " to a side", ["any side", "lock red", "lock blue"],
          function (side) { locks = setSide(locks, name, side); update(); }));
        controls.appendChild(sideSelect(sideIn(now, name), name + " plays now on", ["now: \u2013", "now red", "now blue"],
          function (side) { now = setSide(now, name, side); update(); }));
        li.appendChild(controls);
      }
      var x = text("button", "\u00d7");
      x.type = "button";
      x.className = "balance-remove";
      x.setAttribute("aria-label", "Remove " + name);
      x.addEventListener("click", function () {
        wanted.splice(k, 1);
        if (i >= 0) forget(name);
        update();
      });
      li.appendChild(x);
      list.appendChild(li);
    });
    el("balance-lobby-tools").hidden = wanted.length === 0;
  }

  // The together and apart rules, each with a remove button.
  function drawRules() {
    var list = el("balance-rules");
    list.textContent = "";
    var item = function (words, remove) {
      var li = text("li", words);
      var x = text("button", "\u00d7");
      x.type = "button";
      x.setAttribute("aria-label", "Remove the rule: " + words);
      x.addEventListener("click", function () { remove(); update(); });
      li.appendChild(x);
      list.appendChild(li);
    };
    together.forEach(function (g, k) {
      item(g.join(", ") + " play together", function () { together.splice(k, 1); });
    });
    apart.forEach(function (g, k) {
      item(g[0] + " and " + g[1] + " play apart", function () { apart.splice(k, 1); });
    });
  }

  function addPlayers(names) {
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
        b.addEventListener("click", function () { addPlayers([name]); search.value = ""; hits.textContent = ""; search.focus(); });
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
    addPlayers(pasted);
  });
  el("balance-clear").addEventListener("click", function () {
    wanted = []; locks = []; together = []; apart = []; now = []; picked = {};
    update();
  });
  var pickedNames = function () { return Object.keys(picked).filter(function (n) { return picked[n]; }); };
  var ruleNote = el("balance-rule-note");
  el("balance-together").addEventListener("click", function () {
    var names = pickedNames();
    if (names.length < 2) { ruleNote.textContent = "Tick two or more players first."; return; }
    ruleNote.textContent = "";
    together.push(names);
    picked = {};
    update();
  });
  el("balance-apart").addEventListener("click", function () {
    var names = pickedNames();
    if (names.length !== 2) { ruleNote.textContent = "Tick exactly two players to keep apart."; return; }
    ruleNote.textContent = "";
    apart.push(names);
    picked = {};
    update();
  });
  var swapBox = el("balance-max-swaps");
  el("balance-now-clear").addEventListener("click", function () { now = []; update(); });
  swapBox.addEventListener("change", function () { maxSwaps = Number(swapBox.value); update(); });
  var clanBox = el("balance-clans"), avoidBox = el("balance-avoid");
  clanBox.value = clans;
  avoidBox.checked = avoidLast;
  clanBox.addEventListener("change", function () { clans = clanBox.value; update(); });
  avoidBox.addEventListener("change", function () { avoidLast = avoidBox.checked; update(); });
  // The page's search without the page, for the test that holds it to the command's
  // (tests/balance_js.rs): the state read from the address, and the swaps from the teams as they are.
  window.fragstatsBalance = {
    compute: compute,
    swaps: function (state) { return swaps(state.lobby, state.rules, state.nowRed, state.nowBlue, maxSwaps); }
  };
  readUrl();
  var linkNote = el("balance-link-note");
  if (linkNote && ignored.length) {
    linkNote.textContent = "Left out of the link, as it could not be read: " + ignored.join("; ") + ".";
  }
  swapBox.value = String(maxSwaps);
  update();
})();
