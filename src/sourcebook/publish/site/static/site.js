// The site's script, and it only enhances: a preview of what an entity's link leads to,
// on hover, on keyboard focus and on a first tap; the search box; tables sorted by a
// column; the masthead's menus closed one by another; citations copied; the sign-up form
// sent from the page. Without it every page reads the same, every link is a plain link
// and every menu opens. It stores nothing and sends nothing anywhere but the sign-up form,
// to the service the reader sends it to: the previews are one file of this site, fetched
// the first time a reader points at a link, and every string of it is set as text.
(function () {
  "use strict";

  function previews() {
    var source = document.body.getAttribute("data-previews");
    if (!source || !window.fetch) return;
    var table = null, loading = null;
    var tip = document.createElement("div");
    tip.className = "preview";
    tip.id = "preview_";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    document.body.appendChild(tip);
    var current = null, wanted = null, pointer = "mouse", pressed = 0;

    function load() {
      if (!loading) {
        loading = fetch(source)
          .then(function (r) { return r.ok ? r.json() : {}; })
          .catch(function () { return {}; })
          .then(function (found) { table = found || {}; return table; });
      }
      return loading;
    }

    function entityLink(target) {
      var link = target && target.closest ? target.closest("a[href]") : null;
      if (!link || !link.closest("main") || tip.contains(link)) return null;
      var href = link.getAttribute("href");
      return href.charAt(0) === "/" && href.charAt(1) !== "/" ? link : null;
    }

    function entry(link) {
      return table ? table[link.getAttribute("href")] || null : null;
    }

    function part(tag, name, text) {
      var element = document.createElement(tag);
      element.className = name;
      element.textContent = text;
      return element;
    }

    function fill(link, found, touch) {
      tip.textContent = "";
      tip.appendChild(part("span", "preview-kind", found[0]));
      tip.appendChild(part("strong", "preview-title", found[1]));
      if (found[2]) tip.appendChild(part("span", "preview-line", found[2]));
      if (touch) {
        var open = part("a", "preview-open", "Open " + found[1]);
        open.href = link.getAttribute("href");
        tip.appendChild(open);
      }
    }

    // Below the link where it fits, else above it where there is more room; never past
    // the viewport's edges (a preview taller than the room scrolls inside itself).
    function place(link) {
      var box = link.getBoundingClientRect();
      var width = document.documentElement.clientWidth;
      var height = document.documentElement.clientHeight;
      var below = height - box.bottom - 14, above = box.top - 14;
      tip.style.maxHeight = "";
      var tall = tip.offsetHeight;
      var under = tall <= below || below >= above;
      tip.style.maxHeight = Math.max(below, above, 48) + "px";
      tall = tip.offsetHeight;
      var left = Math.max(8, Math.min(box.left + window.scrollX,
        window.scrollX + width - tip.offsetWidth - 8));
      tip.style.left = left + "px";
      tip.style.top = (under ? box.bottom + 6 : box.top - tall - 6) + window.scrollY + "px";
      tip.classList.toggle("preview-above", !under);
    }

    function show(link, touch) {
      wanted = link;
      return load().then(function () {
        var found = entry(link);
        if (wanted !== link || !found) return false;
        if (current && current !== link) current.removeAttribute("aria-describedby");
        current = link;
        fill(link, found, touch);
        tip.classList.toggle("preview-touch", !!touch);
        tip.hidden = false;
        place(link);
        link.setAttribute("aria-describedby", tip.id);
        return true;
      });
    }

    function hide() {
      wanted = null;
      if (current) current.removeAttribute("aria-describedby");
      current = null;
      tip.hidden = true;
    }

    document.addEventListener("pointerover", function (event) {
      pointer = event.pointerType || "mouse";
    }, true);
    document.addEventListener("pointerdown", function (event) {
      pointer = event.pointerType || "mouse";
      pressed = Date.now();
      if (pointer === "touch") load();
    }, true);
    document.addEventListener("mouseover", function (event) {
      var link = entityLink(event.target);
      if (link && pointer !== "touch" && link !== current) show(link, false);
    });
    document.addEventListener("mouseout", function (event) {
      var link = entityLink(event.target);
      if (link && link === current && !link.contains(event.relatedTarget) &&
          !tip.classList.contains("preview-touch")) hide();
    });
    document.addEventListener("focusin", function (event) {
      if (tip.contains(event.target)) return;
      if (pointer === "touch" && Date.now() - pressed < 1000) return;  // a tap's: see click
      var link = entityLink(event.target);
      if (link) show(link, false); else if (current) hide();
    });
    document.addEventListener("focusout", function (event) {
      if (event.target === current && !tip.contains(event.relatedTarget) &&
          !tip.classList.contains("preview-touch")) hide();
    });
    // A first tap shows the preview, with a link to open the page; a second tap opens it.
    document.addEventListener("click", function (event) {
      if (tip.contains(event.target)) return;
      var link = entityLink(event.target);
      if (!link || pointer !== "touch") {
        if (!link && current) hide();
        return;
      }
      if (link === current && !tip.hidden && tip.classList.contains("preview-touch")) return;
      event.preventDefault();
      show(link, true).then(function (shown) {
        if (!shown && wanted === link) window.location.assign(link.href);
      });
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape" || !current) return;
      var link = current;
      var inside = tip.contains(document.activeElement);
      hide();
      if (inside) link.focus();
    });
  }

  function searchBox() {
    var form = document.querySelector("form.site-search");
    if (!form) return;
    form.hidden = false;
    var input = form.querySelector("input");
    document.addEventListener("keydown", function (event) {
      var typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        input.focus();
      }
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

  // The masthead's menus: one open at a time; Escape or a click elsewhere closes it.
  function menus() {
    var groups = document.querySelectorAll("details.menu-group, details.menu-phone");
    function closeAll(except) {
      groups.forEach(function (one) { if (one !== except) one.open = false; });
    }
    groups.forEach(function (one) {
      one.addEventListener("toggle", function () { if (one.open) closeAll(one); });
    });
    document.addEventListener("click", function (event) {
      closeAll(event.target.closest ? event.target.closest("details.menu-group, details.menu-phone") : null);
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") return;
      var open = document.querySelector("details.menu-group[open], details.menu-phone[open]");
      if (!open) return;
      open.open = false;
      open.querySelector("summary").focus();
    });
  }

  // A citation to copy: each "Copy" button copies the text of the element it names.
  function copyButtons() {
    if (!navigator.clipboard) return;
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      var target = document.getElementById(button.getAttribute("data-copy"));
      if (!target) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(target.textContent.trim()).then(function () {
          button.textContent = "Copied";
        }, function () { button.textContent = "Select the text to copy it"; });
      });
    });
  }

  // The sign-up form posts from the page: where the service cannot be reached the reader
  // is told so, and what they typed stays in the form. The service answers no script of
  // another site, so a reply is taken as received; the service's email says the rest.
  function signup() {
    var form = document.querySelector("form.notify-form");
    if (!form || !window.fetch || !window.URLSearchParams) return;
    var status = form.querySelector(".notify-status");
    var button = form.querySelector("button[type=submit]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      button.disabled = true;
      status.textContent = "Sending…";
      fetch(form.action, {
        method: "POST", mode: "no-cors", credentials: "omit",
        body: new URLSearchParams(new FormData(form))
      }).then(function () {
        status.textContent = "Sent. Look for an email from us with a link to confirm: " +
          "nothing more is sent until you follow it.";
        form.classList.add("notify-sent");
      }, function () {
        status.textContent = "The sign-up service cannot be reached just now, so nothing " +
          "was sent. What you typed is still here: try again in a while.";
        button.disabled = false;
      });
    });
  }

  previews();
  searchBox();
  sortableTables();
  menus();
  copyButtons();
  signup();
})();
