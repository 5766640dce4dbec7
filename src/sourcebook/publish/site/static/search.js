// The search page: Pagefind's index of this site, searched in the browser as the reader
// types, each hit shown with its kind and first line, filtered by kind. Every string of
// a hit is set as text. Without JavaScript, or where the index cannot be loaded, the page
// lists the record's indexes instead.
(function () {
  "use strict";

  var root = document.querySelector(".search[data-bundle]");
  if (!root) return;
  var input = document.getElementById("search_query_");
  var kinds = root.querySelector(".search-kinds");
  var status = document.getElementById("search_status_");
  var list = document.getElementById("search_results_");
  var fallback = document.querySelector(".search-fallback");
  var form = root.querySelector("form");
  var SHOWN = 30, RANKED = 60;
  var pagefind = null, asked = 0, timer = null;
  var params = new URLSearchParams(window.location.search);
  var chosen = params.getAll("kind");

  root.hidden = false;
  fallback.hidden = true;
  input.value = params.get("q") || "";
  input.focus();

  function part(tag, name, text) {
    var element = document.createElement(tag);
    if (name) element.className = name;
    if (text) element.textContent = text;
    return element;
  }

  var ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'", "&#x27;": "'" };

  function decoded(text) {
    return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, function (found) { return ENTITIES[found]; });
  }

  // Pagefind's excerpt is text with <mark> around the words found: made into text nodes
  // and mark elements, never parsed as HTML.
  function excerpt(html) {
    var holder = part("p", "search-excerpt");
    html.split(/(<mark>|<\/mark>)/).reduce(function (marking, piece) {
      if (piece === "<mark>") return true;
      if (piece === "</mark>") return false;
      if (piece) holder.appendChild(marking ? part("mark", "", decoded(piece)) : document.createTextNode(decoded(piece)));
      return marking;
    }, false);
    return holder;
  }

  function result(data) {
    var meta = data.meta || {};
    var item = part("li", "search-result");
    var link = part("a", "search-link");
    link.href = meta.url || data.url;
    link.appendChild(part("span", "search-kind", meta.kind || "Page"));
    link.appendChild(document.createTextNode(" "));
    link.appendChild(part("span", "search-title", meta.title || link.href));
    item.appendChild(link);
    if (meta.summary) item.appendChild(part("p", "search-line", meta.summary));
    if (data.excerpt) item.appendChild(excerpt(data.excerpt));
    return item;
  }

  // Pagefind ranks by the words' weight in each page; a reader looking for "Colossus"
  // wants the entities of that name first. So hits whose title holds every word asked
  // come first (the more of the title the words make up, the sooner), then the other
  // entities, then pages that only mention the words; Pagefind's order within each.
  function words(text) {
    return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  }

  function titleMatch(query, title) {
    var asked = words(query), held = words(title || "");
    if (!asked.length || !held.length) return 0;
    var every = asked.every(function (w) { return held.some(function (h) { return h.indexOf(w) === 0; }); });
    if (!every) return 0;
    var covered = held.filter(function (h) { return asked.some(function (w) { return h.indexOf(w) === 0; }); });
    return covered.length / held.length;
  }

  function ranked(query, data) {
    return data.map(function (d, order) {
      var meta = d.meta || {};
      var title = titleMatch(query, meta.title);
      var tier = title ? 0 : (meta.kind && meta.kind !== "Page" ? 1 : 2);
      return { data: d, tier: tier, title: title, order: order };
    }).sort(function (a, b) {
      return a.tier - b.tier || b.title - a.title || a.order - b.order;
    }).map(function (r) { return r.data; });
  }

  function kindCounts(counts) {
    kinds.querySelectorAll("label").forEach(function (label) {
      var box = label.querySelector("input");
      label.querySelector(".count").textContent = String(counts[box.value] || 0);
    });
  }

  function makeKinds(available) {
    Object.keys(available).sort().forEach(function (name) {
      var label = part("label", "search-kind-choice");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.name = "kind";
      box.value = name;
      box.checked = chosen.indexOf(name) !== -1;
      box.addEventListener("change", function () {
        chosen = Array.prototype.map.call(kinds.querySelectorAll("input:checked"),
          function (b) { return b.value; });
        run();
      });
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + name + " "));
      label.appendChild(part("span", "count", String(available[name])));
      kinds.appendChild(label);
    });
    kinds.hidden = Object.keys(available).length < 2;
  }

  function remember(query) {
    var next = new URLSearchParams();
    if (query) next.set("q", query);
    chosen.forEach(function (name) { next.append("kind", name); });
    var search = next.toString();
    window.history.replaceState(null, "", window.location.pathname + (search ? "?" + search : ""));
  }

  function run() {
    if (!pagefind) return;
    var query = input.value.trim();
    var mine = ++asked;
    remember(query);
    if (!query) {
      list.textContent = "";
      status.textContent = "";
      return;
    }
    var filters = chosen.length ? { kind: { any: chosen } } : {};
    pagefind.search(query, { filters: filters }).then(function (found) {
      if (mine !== asked || !found) return null;
      kindCounts(found.totalFilters && found.totalFilters.kind || {});
      return Promise.all(found.results.slice(0, RANKED).map(function (r) { return r.data(); }))
        .then(function (data) {
          if (mine !== asked) return;
          list.textContent = "";
          ranked(query, data).slice(0, SHOWN).forEach(function (d) { list.appendChild(result(d)); });
          var count = found.results.length;
          status.textContent = count === 0 ? "Nothing in the record matches “" + query + "”."
            : count + (count === 1 ? " result" : " results") +
              (count > SHOWN ? ", the first " + SHOWN + " shown" : "") + ".";
        });
    });
  }

  function soon() {
    window.clearTimeout(timer);
    timer = window.setTimeout(run, 120);
  }

  input.addEventListener("input", soon);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    window.clearTimeout(timer);
    run();
  });

  // Arrow keys move between the box and the results; Escape empties the box.
  function links() { return Array.prototype.slice.call(list.querySelectorAll("a.search-link")); }
  root.addEventListener("keydown", function (event) {
    var all = links(), at = all.indexOf(document.activeElement);
    if (event.key === "ArrowDown" && (document.activeElement === input || at !== -1)) {
      event.preventDefault();
      if (all.length) all[Math.min(at + 1, all.length - 1)].focus();
    } else if (event.key === "ArrowUp" && at !== -1) {
      event.preventDefault();
      if (at === 0) input.focus(); else all[at - 1].focus();
    } else if (event.key === "Escape" && document.activeElement === input && input.value) {
      input.value = "";
      run();
    }
  });

  status.textContent = "Loading the index…";
  import(root.getAttribute("data-bundle") + "pagefind.js")
    .then(function (module) {
      pagefind = module;
      return pagefind.options({ excerptLength: 24 }).then(function () { return pagefind.filters(); });
    })
    .then(function (filters) {
      status.textContent = "";
      makeKinds(filters.kind || {});
      run();
    })
    .catch(function () {
      status.textContent = "The search index could not be loaded. The lists below lead to everything the record holds.";
      fallback.hidden = false;
    });
})();
