// linkledger ui: the little the pages need a script for. Every page works
// without it; this adds selection-to-highlight in the reader, the review
// queue's keys and the inbox's live status.
(function () {
  "use strict";

  // Reader: select text, then Highlight / Lowlight / Note.
  function reader() {
    var text = document.getElementById("text");
    var form = document.getElementById("annotate");
    var bar = document.getElementById("selbar");
    if (!text || !form || !bar) return;
    var quote = document.getElementById("quote");
    function selected() {
      var sel = window.getSelection();
      if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
      var r = sel.getRangeAt(0);
      if (!text.contains(r.commonAncestorContainer)) return null;
      var s = sel.toString().trim();
      return s ? { text: s, rect: r.getBoundingClientRect() } : null;
    }
    function show() {
      var s = selected();
      if (!s) { bar.hidden = true; return; }
      quote.value = s.text;
      bar.hidden = false;
      bar.style.top = (window.scrollY + s.rect.bottom + 6) + "px";
      bar.style.left = Math.max(4, Math.min(window.scrollX + s.rect.left, window.scrollX + document.documentElement.clientWidth - bar.offsetWidth - 4)) + "px";
    }
    text.addEventListener("mouseup", function () { setTimeout(show, 0); });
    text.addEventListener("keyup", show);
    text.addEventListener("touchend", function () { setTimeout(show, 0); });
    bar.addEventListener("mousedown", function (e) { e.preventDefault(); }); // keep the selection
    bar.addEventListener("click", function (e) {
      var t = e.target.getAttribute("data-type");
      if (!t) return;
      bar.hidden = true;
      if (t === "note") {
        var note = document.getElementById("note");
        note.scrollIntoView({ block: "center" });
        note.focus();
        return;
      }
      form.requestSubmit(document.getElementById("do-" + t));
    });
  }

  // Review queue: j/k move, c confirm, x reject, p pin, ? help.
  function review() {
    var queue = document.getElementById("queue");
    if (!queue) return;
    var items = Array.prototype.slice.call(queue.querySelectorAll(".qitem"));
    if (!items.length) return;
    var at = parseInt(sessionStorage.getItem("ll-review-at") || "0", 10);
    function go(i) {
      at = Math.max(0, Math.min(items.length - 1, i));
      items.forEach(function (el, k) { el.classList.toggle("current", k === at); });
      items[at].focus({ preventScroll: true });
      items[at].scrollIntoView({ block: "nearest" });
      sessionStorage.setItem("ll-review-at", String(at));
    }
    go(at);
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var tag = (e.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "textarea" || tag === "select") return;
      var k = e.key;
      if (k === "j") { go(at + 1); e.preventDefault(); }
      else if (k === "k") { go(at - 1); e.preventDefault(); }
      else if (k === "?") { var h = document.getElementById("keyhelp"); h.hidden = !h.hidden; e.preventDefault(); }
      else if (k === "c" || k === "x" || k === "p") {
        var f = items[at].querySelector('form[data-key="' + k + '"]');
        if (f) { e.preventDefault(); f.requestSubmit(); }
      }
    });
  }

  // Inbox, or the reader of an item not ingested yet: while items wait
  // for the worker, reload when the counts by state change.
  function live() {
    var counts = document.getElementById("counts");
    var waiting = counts && counts.getAttribute("data-worker") === "true" && document.querySelector(".item.pending");
    if (!waiting && !document.querySelector("[data-live]")) return;
    var last = null;
    function poll() {
      fetch("/status.json", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (c) {
        var s = JSON.stringify(c);
        if (last !== null && s !== last) { location.reload(); return; }
        last = s;
        setTimeout(poll, 1500);
      }).catch(function () { setTimeout(poll, 5000); });
    }
    poll();
  }

  function capture() {
    var b = document.getElementById("close-window");
    if (b) b.addEventListener("click", function () { window.close(); });
  }

  document.addEventListener("DOMContentLoaded", function () { reader(); review(); live(); capture(); });
})();
