// Seed groups (views/groups.templ): app.js follows each member's training
// job over server-sent events and writes its state on the job's widget
// (data-state); this follows those states, keeps the group's summary
// current and shows "Compare this group" once no member trains and two or
// more are ready — without a reload.
(function () {
  "use strict";

  // A member model's state from its training job's.
  var MODEL_STATE = { done: "ready", queued: "training", running: "training" };

  // status says it as views.GroupStatus does.
  function status(n, ready, training) {
    var s = ready + " of " + n + " ready";
    if (training > 0) s += ", " + training + " training";
    if (n - ready - training > 0) s += ", " + (n - ready - training) + " failed or stopped";
    return s;
  }

  function watch(g) {
    if (g.hasAttribute("data-group-watched")) return;
    g.setAttribute("data-group-watched", "true");
    var summary = g.querySelector("[data-role=group-status]");
    var compare = g.querySelector("[data-role=group-compare]");
    var wait = g.querySelector("[data-role=group-wait]");
    var update = function () {
      var members = g.querySelectorAll("[data-member]");
      var ready = 0, training = 0;
      members.forEach(function (m) {
        var job = m.querySelector("[data-job]");
        var s = m.getAttribute("data-state");
        if (job) {
          var js = job.getAttribute("data-state");
          s = MODEL_STATE[js] || js;
          var bar = job.querySelector("[data-role=bar]");
          if (js === "done" && bar && bar.style.width !== "100%") bar.style.width = "100%";
          // Only a change is written: the observer below sees every write.
          if (m.getAttribute("data-state") !== s) m.setAttribute("data-state", s);
        }
        if (s === "ready") ready++;
        else if (s === "training") training++;
      });
      var text = status(members.length, ready, training);
      if (summary && summary.textContent !== text) summary.textContent = text;
      if (training === 0 && ready >= 2) {
        if (compare) compare.hidden = false;
        if (wait) wait.hidden = true;
      }
    };
    new MutationObserver(update).observe(g, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
    update();
  }

  var boot = function () { document.querySelectorAll("[data-group]").forEach(watch); };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
