// seedengine console: two mends to River UI v0.22.0's page (/console/queue/),
// loaded before River UI's own scripts (queue.go puts it in the page's head).
(function () {
  "use strict";

  // goober (react-hot-toast's styles) writes keyframes into a <style
  // id="_goober"> it adds to the page at run time: inline style that the
  // console's policy blocks, since its text grows as it goes and no hash
  // can allow it, and the browser reports each write. goober takes
  // window._goober when there is one: a style element kept out of the
  // document, so nothing is blocked and nothing looks different (River UI
  // draws its toasts with classes of its own).
  var sheet = document.createElement("style");
  sheet.appendChild(document.createTextNode(" "));
  window._goober = sheet;

  // A button whose aria-label leaves out its visible text (the job state
  // menu on a phone: "Job state" over "Running 0") is announced under a
  // name a person who speaks to it cannot know (axe-core's
  // label-content-name-mismatch). The label becomes its title, and its
  // name its text.
  function mend(root) {
    if (!root.querySelectorAll) { return; }
    root.querySelectorAll("button[aria-label]").forEach(function (b) {
      var seen = (b.innerText || "").replace(/\s+/g, " ").trim();
      var label = b.getAttribute("aria-label");
      if (seen && label.toLowerCase().indexOf(seen.toLowerCase()) < 0) {
        b.removeAttribute("aria-label");
        if (!b.title) { b.title = label; }
      }
    });
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.type === "attributes") { mend(r.target.parentNode || document); } else { mend(r.target); }
    });
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-label"] });
})();
