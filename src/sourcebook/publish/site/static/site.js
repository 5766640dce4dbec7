// The site's one script, and it only enhances: a term's definition on hover and on
// keyboard focus, and tables sorted by a column. Without it every page reads the same
// and a term is a plain link. It stores nothing and sends nothing anywhere.
(function () {
  "use strict";

  function definitions() {
    var holder = document.getElementById("definitions_");
    if (!holder) return {};
    try { return JSON.parse(holder.textContent || "{}"); } catch (e) { return {}; }
  }

  function tooltips() {
    var table = definitions();
    var tip = document.createElement("div");
    tip.className = "tooltip";
    tip.id = "tooltip_";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    document.body.appendChild(tip);
    var current = null;

    function show(link) {
      var text = table[link.getAttribute("href")];
      if (!text) return;
      current = link;
      tip.textContent = text;
      tip.hidden = false;
      link.setAttribute("aria-describedby", tip.id);
      var box = link.getBoundingClientRect();
      var left = Math.max(8, Math.min(box.left + window.scrollX,
        window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 8));
      tip.style.left = left + "px";
      tip.style.top = (box.bottom + window.scrollY + 6) + "px";
    }

    function hide() {
      if (current) current.removeAttribute("aria-describedby");
      current = null;
      tip.hidden = true;
    }

    document.querySelectorAll("a.term").forEach(function (link) {
      link.addEventListener("mouseenter", function () { show(link); });
      link.addEventListener("focus", function () { show(link); });
      link.addEventListener("mouseleave", hide);
      link.addEventListener("blur", hide);
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") hide();
    });
  }

  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    if (!cell) return numeric ? -Infinity : "";
    var raw = cell.getAttribute("data-value");
    if (numeric) {
      var number = parseFloat(raw === null ? cell.textContent : raw);
      return isNaN(number) ? -Infinity : number;
    }
    return (raw === null ? cell.textContent : raw).trim().toLowerCase();
  }

  function sortBy(table, header, index) {
    var numeric = header.getAttribute("data-sort") === "number";
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("thead th").forEach(function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      var order = numeric ? x - y : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function sortableTables() {
    // The hint is only true where this runs: without it the headings are plain text.
    document.querySelectorAll(".sort-hint").forEach(function (hint) { hint.hidden = false; });
    document.querySelectorAll("table.sortable").forEach(function (table) {
      table.querySelectorAll("thead th[data-sort]").forEach(function (header, _, all) {
        var index = Array.prototype.indexOf.call(header.parentNode.children, header);
        var button = document.createElement("button");
        button.type = "button";
        while (header.firstChild) button.appendChild(header.firstChild);
        header.appendChild(button);
        button.addEventListener("click", function () { sortBy(table, header, index); });
      });
    });
  }

  tooltips();
  sortableTables();
})();
