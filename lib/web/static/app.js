// linkledger ui: the little the pages need a script for. Every page works
// without it; this adds selection-to-highlight in the reader (inplace.js
// posts the reader's forms in place and keeps the inbox live; review.js
// drives the review queue).
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

  // The review queue's keys and the live status are in review.js and
  // inplace.js.

  function capture() {
    var b = document.getElementById("close-window");
    if (b) b.addEventListener("click", function () { window.close(); });
  }

  document.addEventListener("DOMContentLoaded", function () { reader(); capture(); });
})();
