// seedengine console: refreshes what is running, and keyboard shortcuts.
// No framework, no network beyond this console's own pages.
(function () {
  "use strict";

  // Elements with data-refresh are fetched again every data-every ms and
  // replaced in place, until the answer carries data-final.
  function refresh(el) {
    var url = el.getAttribute("data-refresh");
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    var timer = setInterval(function () {
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null) { return; }
          el.innerHTML = html;
          if (el.querySelector("[data-final]")) {
            clearInterval(timer);
            el.removeAttribute("data-refresh");
          }
        })
        .catch(function () {});
    }, every);
  }
  document.querySelectorAll("[data-refresh]").forEach(refresh);

  // Row tables (the seeds list): j/k move, Enter opens, a click opens.
  var rows = Array.prototype.slice.call(document.querySelectorAll("[data-keys=rows] tbody tr[data-href]"));
  var at = -1;
  function select(i) {
    if (!rows.length) { return; }
    if (at >= 0) { rows[at].classList.remove("selected"); }
    at = Math.max(0, Math.min(rows.length - 1, i));
    rows[at].classList.add("selected");
    rows[at].scrollIntoView({ block: "nearest" });
  }
  rows.forEach(function (tr, i) {
    tr.addEventListener("click", function (e) {
      if (e.target.closest("a, button, input, select, textarea")) { return; }
      window.location = tr.getAttribute("data-href");
    });
  });

  function typing(e) {
    var t = e.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }
  document.addEventListener("keydown", function (e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) { return; }
    var next = document.querySelector("a[rel=next]");
    switch (e.key) {
    case "j": if (rows.length) { select(at + 1); e.preventDefault(); } break;
    case "k": if (rows.length) { select(at - 1); e.preventDefault(); } break;
    case "Enter": if (at >= 0) { window.location = rows[at].getAttribute("data-href"); e.preventDefault(); } break;
    case "n": if (next && !rows.length) { window.location = next.href; e.preventDefault(); } break;
    case "p":
      var prev = document.querySelector("a[rel=prev]");
      if (prev && !rows.length) { window.location = prev.href; e.preventDefault(); }
      break;
    case "a":
      var promote = document.getElementById("promote");
      if (promote) { promote.requestSubmit(); e.preventDefault(); }
      break;
    case "u":
      var up = document.querySelector(".crumbs a");
      if (up) { window.location = up.href; e.preventDefault(); }
      break;
    }
  });

  // Archiving is final: ask first.
  document.querySelectorAll("form[data-confirm-archive]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      var b = e.submitter;
      if (b && b.classList.contains("danger") && !window.confirm(f.getAttribute("data-confirm-archive"))) {
        e.preventDefault();
      }
    });
  });
})();
