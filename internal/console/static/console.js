// seedengine console: refreshes what is running, and keyboard shortcuts.
// No framework, no network beyond this console's own pages.
(function () {
  "use strict";

  // Elements with data-refresh are fetched again every data-every ms and
  // replaced in place, until the answer carries data-final. An answer
  // like the last is left alone: a live region (a seed's read notice)
  // then speaks only when its words change.
  function refresh(el) {
    var url = el.getAttribute("data-refresh");
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    var last = el.innerHTML;
    var timer = setInterval(function () {
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null || html === last) { return; }
          last = html;
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
  // Selecting seeds for a bulk action (the seeds list): a count that
  // follows the boxes, the page's box, and Shift-click for a range.
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[type=checkbox][form=bulk][name=id]"));
  var count = document.getElementById("selected");
  var all = document.getElementById("all-matching");
  var pageBox = document.getElementById("select-page");
  function counted() {
    if (!count) { return; }
    var n = boxes.filter(function (b) { return b.checked; }).length;
    count.textContent = all && all.checked ? "all matching selected" : n + " selected";
    if (pageBox) { pageBox.checked = n > 0 && n === boxes.length; }
  }
  var last = -1;
  boxes.forEach(function (b, i) {
    b.addEventListener("click", function (e) {
      if (e.shiftKey && last >= 0) {
        var lo = Math.min(last, i), hi = Math.max(last, i);
        for (var j = lo; j <= hi; j++) { boxes[j].checked = b.checked; }
      }
      last = i;
      counted();
    });
  });
  if (pageBox) {
    pageBox.addEventListener("change", function () {
      boxes.forEach(function (b) { b.checked = pageBox.checked; });
      counted();
    });
  }
  if (all) { all.addEventListener("change", counted); }
  counted();

  // The reject picker (a seed's page): r opens it, a digit picks the
  // reason and rejects, Escape closes it.
  var reject = document.getElementById("reject");
  function picking() { return reject && reject.open; }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (picking()) {
      if (e.key === "Escape") { reject.open = false; reject.querySelector("summary").focus(); e.preventDefault(); return; }
      var pick = /^[1-9]$/.test(e.key) && e.target.id !== "reject-note" && reject.querySelector("input[data-key='" + e.key + "']");
      if (pick) { pick.checked = true; pick.form.requestSubmit(); e.preventDefault(); }
      return;
    }
    if (typing(e)) { return; }
    var next = document.querySelector("a[rel=next]");
    switch (e.key) {
    case "r":
      if (reject) {
        reject.open = true;
        var first = reject.querySelector("input[name=reason_code]:checked") || reject.querySelector("input[name=reason_code]");
        if (first) { first.focus(); }
        e.preventDefault();
      }
      break;
    case "s":
      var skip = document.getElementById("skip");
      if (skip) { window.location = skip.href; e.preventDefault(); }
      break;
    case "x":
      if (at >= 0) {
        var box = rows[at].querySelector("input[type=checkbox]");
        if (box) { box.checked = !box.checked; last = boxes.indexOf(box); counted(); e.preventDefault(); }
      }
      break;
    case "1": case "2": case "3": case "4": case "5": case "6": case "7": case "8": case "9":
      var use = document.querySelector("form[data-choose='" + e.key + "']");
      if (use) { use.requestSubmit(); e.preventDefault(); }
      break;
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
    case "c":
      var check = document.getElementById("check");
      if (check) { check.requestSubmit(); e.preventDefault(); }
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
