// fragstats: sortable tables and player search. Works from file:// (no fetch) and leaves the
// pages fully readable without JavaScript. Player names are only ever set as text, never HTML.
(function () {
  "use strict";

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) return "";
    var text = (cell.getAttribute("data-sort") || cell.textContent || "").trim();
    var number = parseFloat(text.replace(/[%+\u25B2\u25BC\u2022,]/g, "").trim());
    return isNaN(number) || !/^[-+]?[\d.]/.test(text) ? text.toLowerCase() : number;
  }

  function sortTable(table, index, th) {
    var body = table.tBodies[0];
    if (!body) return;
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      var order;
      if (typeof x === "number" && typeof y === "number") order = x - y;
      else order = String(x).localeCompare(String(y));
      return ascending ? order : -order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
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
    function show() {
      var q = input.value.trim().toLowerCase();
      while (list.firstChild) list.removeChild(list.firstChild);
      if (!q) { list.hidden = true; return; }
      var hits = players.filter(function (p) { return p[0].toLowerCase().indexOf(q) !== -1; }).slice(0, 12);
      hits.forEach(function (p) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.textContent = p[0];
        a.href = root + p[1];
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

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.data"), makeSortable);
    setupSearch();
    document.body.setAttribute("data-js", "ready");
  });
})();
