// fragstats: sortable tables and player search. Works from file:// (no fetch) and leaves the
// pages fully readable without JavaScript. Player names are only ever set as text, never HTML.
(function () {
  "use strict";

  // Sort keys. A cell's `data-sort` (a machine value the page wrote: ISO date, seconds, number)
  // wins over its text. Keys rank numbers (dates and durations become numbers) before text, and
  // empty cells ("", "-", "\u2014") last in both directions.
  var ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
  var DURATION = /^(?:(\d+):)?(\d{1,2}):(\d{2})$/;
  var NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
  var EMPTY = /^[-\u2013\u2014]?$/;
  var collator = window.Intl && Intl.Collator
    ? new Intl.Collator(undefined, { numeric: true, sensitivity: "base" })
    : null;

  function sortKey(row, index) {
    var cell = row.cells[index];
    if (!cell) return { rank: 2 };
    var text = (cell.getAttribute("data-sort") || cell.textContent || "").trim();
    if (EMPTY.test(text)) return { rank: 2 };
    var m = ISO_DATE.exec(text);
    if (m) {
      return { rank: 0, value: Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0), +(m[6] || 0)) };
    }
    m = DURATION.exec(text);
    if (m) return { rank: 0, value: (+(m[1] || 0)) * 3600 + (+m[2]) * 60 + (+m[3]) };
    // Numbers with a unit or mark around them: 12.5%, +3.1, 1,024, 1510.2 \u25B2.
    var bare = text.replace(/[%\u25B2\u25BC\u2022,\s]/g, "").replace(/\u2212/g, "-");
    if (NUMBER.test(bare)) return { rank: 0, value: parseFloat(bare) };
    return { rank: 1, value: text };
  }

  function compareText(a, b) {
    // Natural order: "Match 99" before "Match 126".
    return collator ? collator.compare(a, b) : a.localeCompare(b, undefined, { numeric: true });
  }

  function sortTable(table, index, th) {
    var body = table.tBodies[0];
    if (!body) return;
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.map.call(body.rows, function (r, i) {
      return { row: r, key: sortKey(r, index), at: i };
    });
    rows.sort(function (a, b) {
      var x = a.key, y = b.key;
      var order;
      if (x.rank === 2 || y.rank === 2) {
        order = x.rank === y.rank ? 0 : x.rank === 2 ? 1 : -1;
        return order || a.at - b.at; // empty last either way
      }
      if (x.rank !== y.rank) order = x.rank - y.rank;
      else if (x.rank === 0) order = x.value - y.value;
      else order = compareText(x.value, y.value);
      if (!ascending) order = -order;
      return order || a.at - b.at;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
    Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  function makeSortable(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    Array.prototype.forEach.call(head.cells, function (th, index) {
      th.classList.add("sortable");
      th.setAttribute("tabindex", "0");
      th.setAttribute("title", "Sort by this column");
      th.addEventListener("click", function () { sortTable(table, index, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortTable(table, index, th); }
      });
    });
    table.setAttribute("data-sortable", "ready");
  }

  // The search box. A page loads data/search.js (the shard table); typing loads one shard,
  // data/search/<n>.js: the smallest among those of the typed text's character pairs (a player
  // is in the shard of every pair in their names), so a crowd's roster is never loaded whole.
  // A page of an older template may load the whole index (data/search-index.js) instead.
  function setupSearch() {
    var form = document.getElementById("search");
    var input = document.getElementById("search-input");
    var list = document.getElementById("search-results");
    var meta = window.FRAGSTATS_SEARCH;
    var whole = window.FRAGSTATS_PLAYERS;
    if (!form || !input || !list) return;
    if (!(meta && meta.shards > 0) && !Array.isArray(whole)) return;
    var root = document.body.getAttribute("data-root") || "";
    form.hidden = false;
    // Names compare without colour codes (^1Red^7Devil) and case.
    function fold(name) { return String(name).replace(/\^[0-9A-Za-z]/g, "").trim().toLowerCase(); }
    // Loaded shards by number: their players and each player's folded names (names[0] is the
    // name shown; the others are the key and the other names used; the URL is left out).
    var loaded = {};
    var waiting = {};
    function prepare(players) {
      return {
        players: players,
        folded: players.map(function (p) {
          return p.filter(function (_, i) { return i !== 1; }).map(fold);
        })
      };
    }
    if (!(meta && meta.shards > 0)) {
      meta = { shards: 1, sizes: [whole.length], capped: [] };
      loaded[0] = prepare(whole);
    }
    // The shard of a character pair: the same 32-bit arithmetic as src/render/search.rs.
    function bucket(a, b) {
      var k = (a * 65599 + b) >>> 0;
      var h = Math.imul(k, 0x9E3779B1);
      h = h ^ (h >>> 15);
      return (h >>> 0) % meta.shards;
    }
    function complete(s) { return meta.capped.indexOf(s) < 0; }
    // The shard to search for folded text `q`; -1 when it is too short to pick one. A shard
    // already loaded for a pair of `q` that holds everyone with that pair will do (typing on
    // loads nothing new); else the smallest.
    function shardFor(q) {
      if (meta.shards === 1) return 0;
      var chars = Array.from(q);
      var best = -1, have = -1;
      for (var i = 0; i + 1 < chars.length; i++) {
        var s = bucket(chars[i].codePointAt(0), chars[i + 1].codePointAt(0));
        if (best < 0 || (meta.sizes[s] || 0) < (meta.sizes[best] || 0)) best = s;
        if (loaded[s] && complete(s) && (have < 0 || meta.sizes[s] < meta.sizes[have])) have = s;
      }
      return have >= 0 ? have : best;
    }
    function load(s, done) {
      if (loaded[s]) { done(); return; }
      if (waiting[s]) { waiting[s].push(done); return; }
      waiting[s] = [done];
      var script = document.createElement("script");
      function finish(ok) {
        var table = window.FRAGSTATS_SHARDS || {};
        loaded[s] = prepare(ok && Array.isArray(table[s]) ? table[s] : []);
        loaded[s].missing = !ok;
        var callbacks = waiting[s];
        delete waiting[s];
        callbacks.forEach(function (f) { f(); });
      }
      script.onload = function () { finish(true); };
      script.onerror = function () { finish(false); };
      script.src = root + "data/search/" + s + ".js";
      document.head.appendChild(script);
    }
    function note(text) {
      var li = document.createElement("li");
      li.textContent = text;
      li.className = "muted";
      list.appendChild(li);
    }
    function render(q, shard, capped) {
      while (list.firstChild) list.removeChild(list.firstChild);
      var hits = [];
      var players = shard ? shard.players : [];
      for (var i = 0; i < players.length && hits.length < 12; i++) {
        var names = shard.folded[i];
        for (var j = 0; j < names.length; j++) {
          if (names[j].indexOf(q) !== -1) { hits.push({ p: players[i], also: j ? players[i][j + 1] : "" }); break; }
        }
      }
      hits.forEach(function (hit) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.textContent = hit.p[0];
        a.href = root + hit.p[1];
        if (hit.also && fold(hit.also) !== fold(hit.p[0])) {
          var also = document.createElement("span");
          also.className = "muted small";
          also.textContent = " (" + hit.also + ")";
          a.appendChild(also);
        }
        li.appendChild(a);
        list.appendChild(li);
      });
      if (!shard) note("Type one more letter");
      else if (shard.missing) note("The search index is missing: build the site again");
      else if (!hits.length) note("No player found");
      if (shard && capped && hits.length < 12) {
        note("Only the best-rated players were searched for so common a name: type more of it");
      }
      list.hidden = false;
      // What the list now shows results for (tests wait for it).
      list.setAttribute("data-query", q);
    }
    function show() {
      var q = fold(input.value);
      if (!q) {
        while (list.firstChild) list.removeChild(list.firstChild);
        list.hidden = true;
        list.setAttribute("data-query", "");
        return;
      }
      var s = shardFor(q);
      if (s < 0) { render(q, null, false); return; }
      load(s, function () {
        // Typing may have gone on while the shard loaded.
        if (fold(input.value) === q) render(q, loaded[s], !complete(s));
      });
    }
    input.addEventListener("input", show);
    // `?q=name` opens the page with a search filled in (links to a search, and tests).
    var match = /[?&]q=([^&]*)/.exec(window.location.search);
    if (match) {
      try { input.value = decodeURIComponent(match[1].replace(/\+/g, " ")); } catch (e) { input.value = ""; }
      show();
    }
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "/" && document.activeElement !== input) { e.preventDefault(); input.focus(); }
      if (e.key === "Escape") { list.hidden = true; }
    });
  }

  // A match table whose rows name more than one server gets a server filter (no round trip).
  function serverFilter(table) {
    var rows = table.querySelectorAll("tbody tr[data-server]");
    var names = [];
    Array.prototype.forEach.call(rows, function (r) {
      var s = r.getAttribute("data-server");
      if (names.indexOf(s) < 0) names.push(s);
    });
    if (names.length < 2) return;
    names.sort();
    var label = document.createElement("label");
    label.className = "server-filter";
    label.appendChild(document.createTextNode("Server "));
    var select = document.createElement("select");
    [""].concat(names).forEach(function (n) {
      var o = document.createElement("option");
      o.value = n;
      o.textContent = n || "all servers";
      select.appendChild(o);
    });
    select.addEventListener("change", function () {
      Array.prototype.forEach.call(rows, function (r) {
        r.hidden = select.value !== "" && r.getAttribute("data-server") !== select.value;
      });
    });
    label.appendChild(select);
    var box = table.parentNode.classList.contains("scroll") ? table.parentNode : table;
    box.parentNode.insertBefore(label, box);
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.data"), makeSortable);
    Array.prototype.forEach.call(document.querySelectorAll("table.data"), serverFilter);
    setupSearch();
    document.body.setAttribute("data-js", "ready");
  });
})();
