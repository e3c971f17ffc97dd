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

  function setupSearch() {
    var form = document.getElementById("search");
    var input = document.getElementById("search-input");
    var list = document.getElementById("search-results");
    var players = window.FRAGSTATS_PLAYERS;
    if (!form || !input || !list || !Array.isArray(players)) return;
    var root = document.body.getAttribute("data-root") || "";
    form.hidden = false;
    // Names compare without colour codes (^1Red^7Devil) and case.
    function fold(name) { return String(name).replace(/\^[0-9A-Za-z]/g, "").trim().toLowerCase(); }
    var folded = players.map(function (p) {
      return p.filter(function (_, i) { return i !== 1; }).map(fold);
    });
    function show() {
      var q = fold(input.value);
      while (list.firstChild) list.removeChild(list.firstChild);
      if (!q) { list.hidden = true; return; }
      var hits = [];
      for (var i = 0; i < players.length && hits.length < 12; i++) {
        // names[0] is the name shown; the others are the key and the other names used.
        var names = folded[i];
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
      if (!hits.length) {
        var none = document.createElement("li");
        none.textContent = "No player found";
        none.className = "muted";
        list.appendChild(none);
      }
      list.hidden = false;
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
