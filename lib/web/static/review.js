// linkledger ui: the review queue (docs/ui.md "Review you can trust").
// Keys: j/k move, c confirm, x reject, p pin, u undo the last decision,
// ? help. With the script, a decision is posted with fetch and its card
// becomes a "Confirmed … Undo" line in place; a decision refused because
// the annotation changed since the page was drawn is said on its card.
(function () {
  "use strict";

  function errorText(res, body) {
    var ct = res.headers.get("Content-Type") || "";
    if (ct.indexOf("text/html") === 0) {
      var doc = new DOMParser().parseFromString(body, "text/html");
      var m = doc.querySelector("main .error") || doc.querySelector("main");
      if (m && m.textContent.trim()) return m.textContent.trim();
    }
    return body.trim() || (res.status + " " + res.statusText);
  }

  function review() {
    var queue = document.getElementById("queue");
    if (!queue) return;
    var at = parseInt(sessionStorage.getItem("ll-review-at") || "0", 10);
    var undos = []; // the cards decided on this page, last last
    function items() { return Array.prototype.slice.call(queue.querySelectorAll(":scope > .qitem")); }
    function go(i, focus) {
      var all = items();
      if (!all.length) return;
      at = Math.max(0, Math.min(all.length - 1, i));
      all.forEach(function (el, k) { el.classList.toggle("current", k === at); });
      if (focus !== false) all[at].focus({ preventScroll: true });
      all[at].scrollIntoView({ block: "nearest" });
      sessionStorage.setItem("ll-review-at", String(at));
    }
    // nextOpen is the first card after i not decided yet (else i).
    function nextOpen(i) {
      var all = items();
      for (var k = i + 1; k < all.length; k++) if (!all[k].classList.contains("decided")) return k;
      return i;
    }
    go(at, false);

    function showError(card, msg) {
      var p = card.querySelector(".card-error");
      if (!p) {
        p = document.createElement("p");
        p.className = "error card-error";
        p.setAttribute("role", "alert");
        card.insertBefore(p, card.querySelector(".actions"));
      }
      p.textContent = msg.charAt(0).toUpperCase() + msg.slice(1) + " ";
      var a = document.createElement("a");
      a.href = "/review";
      a.textContent = "Reload the queue";
      p.appendChild(a);
    }

    function submit(form, submitter) {
      var card = form.closest(".qitem");
      var isUndo = form.classList.contains("undo");
      var body = new URLSearchParams(new FormData(form, submitter || undefined)).toString();
      var buttons = card.querySelectorAll("button");
      buttons.forEach(function (b) { b.disabled = true; });
      fetch(form.action, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Fragment": "review", "Content-Type": "application/x-www-form-urlencoded" },
        body: body
      }).then(function (res) {
        return res.text().then(function (body) {
          if (!res.ok) {
            buttons.forEach(function (b) { b.disabled = false; });
            showError(card, errorText(res, body));
            return;
          }
          var parsed = new DOMParser().parseFromString("<ol>" + body + "</ol>", "text/html").querySelector(".qitem");
          if (!parsed) return;
          var fresh = document.importNode(parsed, true);
          card.replaceWith(fresh);
          var i = items().indexOf(fresh);
          if (isUndo) {
            undos = undos.filter(function (c) { return c !== card; });
            go(i);
          } else {
            if (fresh.classList.contains("decided")) undos.push(fresh);
            go(nextOpen(i));
          }
        });
      }).catch(function () {
        buttons.forEach(function (b) { b.disabled = false; });
        showError(card, "The app could not be reached: is linkledger ui still running?");
      });
    }

    document.addEventListener("submit", function (e) {
      var form = e.target;
      if (!(form instanceof HTMLFormElement) || !queue.contains(form)) return;
      e.preventDefault();
      submit(form, e.submitter);
    }, true);

    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var tag = (e.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "textarea" || tag === "select") return;
      var k = e.key, all = items();
      if (k === "j") { go(at + 1); e.preventDefault(); }
      else if (k === "k") { go(at - 1); e.preventDefault(); }
      else if (k === "?") { var h = document.getElementById("keyhelp"); h.hidden = !h.hidden; e.preventDefault(); }
      else if (k === "u") {
        // the last decision made on this page that is still undoable
        while (undos.length && !queue.contains(undos[undos.length - 1])) undos.pop();
        var last = undos.length ? undos[undos.length - 1] : queue.querySelector(".qitem.decided");
        var uf = last && last.querySelector("form.undo");
        if (uf) { e.preventDefault(); uf.requestSubmit(); }
      }
      else if ((k === "c" || k === "x" || k === "p") && all[at]) {
        var f = all[at].querySelector('form[data-key="' + k + '"]');
        if (f) { e.preventDefault(); f.requestSubmit(); }
      }
    });
  }

  document.addEventListener("DOMContentLoaded", review);
})();
