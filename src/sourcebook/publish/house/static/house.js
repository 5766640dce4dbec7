/* /corrections?book=vol1: that book's part first. Without this script every book's part
   is shown in series order, each under its own anchor. */
(function () {
  "use strict";
  var book = new URLSearchParams(location.search).get("book");
  var parts = document.getElementById("parts_");
  if (!book || !parts) return;
  var chosen = null;
  Array.prototype.forEach.call(parts.querySelectorAll(".book-part"), function (part) {
    if (part.getAttribute("data-book") === book) chosen = part;
  });
  if (!chosen) return;
  parts.insertBefore(chosen, parts.firstElementChild);
  chosen.classList.add("chosen");
  var note = document.getElementById("book-choice_");
  if (note) {
    note.textContent = "The part of " + chosen.getAttribute("data-title") +
      " comes first; the other books follow.";
    note.hidden = false;
  }
  var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target) target.scrollIntoView();
})();
