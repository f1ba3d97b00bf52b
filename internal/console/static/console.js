// seedengine console: refreshes what is running, and keyboard shortcuts.
// No framework, no network beyond this console's own pages.
(function () {
  "use strict";

  // Elements with data-refresh are fetched again and replaced in place,
  // until the answer carries data-final: first after 400 ms (a read
  // queued a moment ago has often run by then), then each wait half as
  // long again, up to data-every ms. An answer like the last is left
  // alone: a live region (a seed's read notice) then speaks only when
  // its words change.
  function refresh(el) {
    var url = el.getAttribute("data-refresh");
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    var wait = Math.min(400, every);
    var last = el.innerHTML;
    function again() {
      setTimeout(function () {
        fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
          .then(function (r) { return r.ok ? r.text() : null; })
          .then(function (html) {
            if (html !== null && html !== last) {
              last = html;
              el.innerHTML = html;
              if (el.querySelector("[data-final]")) {
                el.removeAttribute("data-refresh");
                return;
              }
            }
            again();
          })
          .catch(again);
      }, wait);
      wait = Math.min(every, Math.round(wait * 1.5));
    }
    again();
  }
  document.querySelectorAll("[data-refresh]").forEach(refresh);

  // Where the next key goes when a page opens: a form sent back refused
  // → its summary of errors; a notice ("Promoted …", a read queued) →
  // the notice, so that a screen reader says it; a link to a form
  // (/console/work#contract) → its first field, or when the link filled
  // it in, its first empty required field or else its button.
  function formTarget(form) {
    var fields = Array.prototype.slice.call(form.querySelectorAll(
      "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), textarea, select"));
    var filled = fields.some(function (f) { return f.type !== "file" && f.value !== "" && f.tagName !== "SELECT"; });
    if (!filled) { return fields[0]; }
    return fields.find(function (f) { return f.required && !f.value; }) || form.querySelector("button[type=submit]");
  }
  function land() {
    var auto = document.querySelector("[autofocus]");
    if (auto) { auto.focus(); return; } // the browser may not have yet
    var target = document.querySelector("form.sent .problem, main > .problem, main .notice");
    if (!target && location.hash.length > 1) {
      var form = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (form && form.tagName === "FORM") { target = formTarget(form); }
    }
    if (target) { target.focus(); }
  }
  // After the load, when the browser has scrolled to the link's fragment
  // (which moves the focus away from anything focused before).
  window.addEventListener("load", function () { setTimeout(land, 0); });

  // Folds (the seeds list's filters and bulk actions) close on a phone.
  if (window.matchMedia("(max-width: 640px)").matches) {
    document.querySelectorAll("details.fold[open]").forEach(function (d) { d.open = false; });
  }
  window.addEventListener("hashchange", land);

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

  // typing reports whether a key goes into a field (a box or a button
  // takes no letters: a key pressed on it is a shortcut).
  function typing(e) {
    var t = e.target;
    if (!t) { return false; }
    if (t.isContentEditable || t.tagName === "TEXTAREA" || t.tagName === "SELECT") { return true; }
    return t.tagName === "INPUT" && !/^(checkbox|radio|button|submit|reset)$/.test(t.type);
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
      var jump = document.querySelector("a[data-jump='" + e.key + "']");
      if (use) { use.requestSubmit(); e.preventDefault(); }
      else if (jump) {
        // The Start work page: the digit's form, its first field focused.
        var form = document.getElementById(jump.getAttribute("href").slice(1));
        if (form) { history.replaceState(null, "", jump.getAttribute("href")); formTarget(form).focus(); e.preventDefault(); }
      }
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
      var bulkPromote = document.getElementById("bulk-promote");
      if (promote) { promote.requestSubmit(); e.preventDefault(); }
      else if (bulkPromote && (boxes.some(function (b) { return b.checked; }) || (all && all.checked))) {
        bulkPromote.form.requestSubmit(bulkPromote); e.preventDefault();
      }
      break;
    case "Escape":
      var cancel = document.getElementById("cancel");
      if (cancel) { window.location = cancel.href; e.preventDefault(); }
      break;
    case "w":
      var pages = document.getElementById("pages-toggle");
      if (pages) { pages.requestSubmit(); e.preventDefault(); }
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
