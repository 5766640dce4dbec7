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

  // A slip forgiven: the names of terms, campuses, parties and people (previews.json) are
  // matched against the query's words by their edit distance (optimal string alignment,
  // as rapidfuzz's OSA counts it: an insertion, deletion, substitution or swap of two
  // neighbours is one edit), one edit for a word of five to seven letters and two for a
  // longer one. Every word asked must be that close to a word of the name; the closest
  // names come first, then those whose words the query covers most.
  var names = null;

  function folded(text) {
    return text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
  }

  function allowed(word) {
    return word.length >= 8 ? 2 : word.length >= 5 ? 1 : 0;
  }

  function distance(a, b, most) {
    if (Math.abs(a.length - b.length) > most) return most + 1;
    var before = null, row = [], last = [];
    for (var j = 0; j <= b.length; j++) row.push(j);
    for (var i = 1; i <= a.length; i++) {
      var next = [i], least = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
        var d = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) === b.charAt(j - 2) && a.charAt(i - 2) === b.charAt(j - 1)) {
          d = Math.min(d, before[j - 2] + 1);
        }
        next.push(d);
        least = Math.min(least, d);
      }
      if (least > most) return most + 1;
      before = row;
      row = next;
    }
    return row[b.length];
  }

  function nameScore(asked, name) {
    var held = words(folded(name));
    if (!held.length) return null;
    var total = 0, covered = {};
    for (var i = 0; i < asked.length; i++) {
      var most = allowed(asked[i]), best = most + 1, at = -1;
      for (var j = 0; j < held.length; j++) {
        var d = distance(asked[i], held[j], most);
        if (d < best) { best = d; at = j; }
      }
      if (at === -1) return null;
      total += best;
      covered[at] = true;
    }
    return { edits: total, cover: Object.keys(covered).length / held.length };
  }

  function forgiven(query) {
    var asked = words(folded(query));
    if (!names || !asked.length || asked.every(function (w) { return !allowed(w); })) return [];
    var found = [];
    Object.keys(names).forEach(function (url) {
      var entry = names[url];
      if (!entry[3] || (chosen.length && chosen.indexOf(entry[0]) === -1)) return;
      var best = null;
      entry[3].forEach(function (name) {
        var score = nameScore(asked, name);
        if (score && (!best || score.edits < best.edits ||
            (score.edits === best.edits && score.cover > best.cover))) best = score;
      });
      if (best && best.edits > 0) {
        found.push({ edits: best.edits, cover: best.cover, title: entry[1],
          data: { url: url, meta: { url: url, kind: entry[0], title: entry[1], summary: entry[2] } } });
      }
    });
    return found.sort(function (a, b) {
      return a.edits - b.edits || b.cover - a.cover || a.title.localeCompare(b.title);
    }).map(function (hit) { return hit.data; });
  }

  function loadNames() {
    var source = document.body.getAttribute("data-previews");
    if (!source || !window.fetch) return Promise.resolve();
    return fetch(source).then(function (r) { return r.ok ? r.json() : {}; })
      .catch(function () { return {}; })
      .then(function (table) { names = table || {}; });
  }

  // The entities whose names hold the words asked come first; then those a slip away
  // from them; then the rest, as Pagefind ranks them.
  function merged(query, data) {
    var order = ranked(query, data), seen = {};
    var exact = order.filter(function (d) { return titleMatch(query, (d.meta || {}).title); });
    var near = forgiven(query);
    var out = [];
    exact.concat(near, order).forEach(function (d) {
      var url = (d.meta || {}).url || d.url;
      if (!seen[url]) { seen[url] = true; out.push(d); }
    });
    return out;
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
    find(query).then(function (found) {
      if (mine !== asked || !found) return null;
      kindCounts(found.counts);
      return Promise.all(found.results.slice(0, RANKED).map(function (r) { return r.data(); }))
        .then(function (data) {
          if (mine !== asked) return;
          list.textContent = "";
          var shown = merged(query, data);
          shown.slice(0, SHOWN).forEach(function (d) { list.appendChild(result(d)); });
          var count = Math.max(found.results.length, shown.length);
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

  // The index's buckets (index.json; search/buckets.py) merged into the first's program,
  // each filtered by its slot ("bucket"); so are the lexicon's parts ("letter").
  var OPTIONS = { excerptLength: 24 };
  var slots = [], lexicon = {};

  function loadIndex(bundle) {
    return fetch(bundle + "index.json")
      .then(function (r) { if (!r.ok) throw new Error("no index"); return r.json(); })
      .then(function (listed) {
        var buckets = listed.buckets || [];
        if (!buckets.length) throw new Error("an empty index");
        slots = (listed.slots || buckets.map(function (b, i) { return i; })).map(String);
        lexicon = listed.lexicon || {};
        function as(slot) { return Object.assign({ mergeFilter: { bucket: slot } }, OPTIONS); }
        return import(bundle + buckets[0] + "pagefind.js").then(function (module) {
          return module.options(as(slots[0])).then(function () {
            var merging = buckets.slice(1).map(function (bucket, i) {
              return module.mergeIndex(bundle + bucket, as(slots[i + 1]));
            });
            Object.keys(lexicon).forEach(function (letter) {
              merging.push(module.mergeIndex(bundle + lexicon[letter], { mergeFilter: { letter: letter } }));
            });
            return Promise.all(merging);
          }).then(function () { return module; });
        });
      });
  }

  // A query's words as Pagefind takes them.
  function terms(query) {
    return query.replace(/[\p{Pd}\p{Pe}\p{Pf}\p{Pi}\p{Po}\p{Ps}]/gu, "").toLowerCase()
      .split(/\s+/).filter(Boolean);
  }

  // The lexicon's part for a word (search/lexicon.py, part_of).
  function letterOf(term) {
    var first = Array.from(term.normalize("NFD").replace(/\p{M}/gu, ""))[0] || "";
    return first >= "a" && first <= "z" ? first : first >= "0" && first <= "9" ? "0" : "_";
  }

  // The buckets that hold the words each term stands for in the whole site, as the
  // lexicon finds them: a bucket without them would leave the term out (search/lexicon.py).
  function bucketsFor(words) {
    if (!Object.keys(lexicon).length) return Promise.resolve(slots);
    return Promise.all(words.map(function (word) {
      var letter = letterOf(word);
      if (!lexicon[letter]) return null;
      return pagefind.search(word, { filters: { letter: letter, holds: { any: slots } } })
        .then(function (found) {
          if (!found.results.length) return null;
          var held = (found.filters && found.filters.holds) || {};
          return slots.filter(function (slot) { return held[slot] > 0; });
        });
    })).then(function (each) {
      return each.reduce(function (valid, held) {
        return held === null ? valid : valid.filter(function (slot) { return held.indexOf(slot) !== -1; });
      }, slots);
    });
  }

  // A query's hits and the count of each kind, as one index of the site finds them; an
  // exact phrase ("…") needs no lexicon.
  function find(query) {
    var exact = /^\s*".+"\s*$/.test(query), words = terms(query);
    var asking = exact ? query : words.join(" ");
    if (!asking) return Promise.resolve({ results: [], counts: {} });
    return (exact ? Promise.resolve(slots) : bucketsFor(words)).then(function (valid) {
      if (!valid.length) return { results: [], counts: {} };
      var within = { bucket: { any: valid } };
      var all = pagefind.search(asking, { filters: within });
      var some = chosen.length
        ? pagefind.search(asking, { filters: { bucket: within.bucket, kind: { any: chosen } } })
        : all;
      return Promise.all([all, some]).then(function (found) {
        if (!found[0] || !found[1]) return null;
        return { results: found[1].results, counts: (found[0].filters || {}).kind || {} };
      });
    });
  }

  status.textContent = "Loading the index…";
  Promise.all([loadIndex(root.getAttribute("data-bundle")), loadNames()])
    .then(function (loaded) {
      pagefind = loaded[0];
      // The search, open to a program on the page: every hit, and each kind's count.
      window.sourcebookSearch = { find: find };
      return pagefind.filters();
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
