// linkledger ui: the reader's reading state (docs/ui.md "The library").
// Opening an item marks it read; how far down it is read is reported as
// it is scrolled (at most every 2 s, and when the page is left) and the
// place is restored when it is opened again; Star and Mark read/unread
// answer in place. Without this script the buttons post and redirect, and
// "Mark read" does what opening does.
(function () {
  "use strict";
  var art = document.querySelector("article.reader[data-id]");
  if (!art) return;
  var id = art.getAttribute("data-id");
  var part = parseInt(art.getAttribute("data-part"), 10) || 0;
  var base = "/items/" + encodeURIComponent(id);

  function post(path, fields, keepalive) {
    var body = new URLSearchParams();
    Object.keys(fields).forEach(function (k) { body.set(k, fields[k]); });
    return fetch(base + path, {
      method: "POST", body: body, credentials: "same-origin", keepalive: !!keepalive,
      headers: { "Accept": "application/json" }
    });
  }

  // progress: the share of the page scrolled past, 0..1
  function progress() {
    var max = document.documentElement.scrollHeight - window.innerHeight;
    if (max <= 0) return 1;
    return Math.min(1, Math.max(0, window.scrollY / max));
  }
  var sent = -1, timer = null, last = 0;
  function report(keepalive) {
    timer = null;
    last = Date.now();
    var p = Math.round(progress() * 1000) / 1000;
    if (p === sent) return;
    sent = p;
    post("/progress", { part: part, progress: p }, keepalive).catch(function () { sent = -1; });
  }
  function soon() {
    if (timer) return;
    timer = setTimeout(report, Math.max(0, 2000 - (Date.now() - last)));
  }

  // restore the place it was left at, unless the address names one
  var saved = parseFloat(art.getAttribute("data-progress"));
  if (!location.hash && saved > 0) {
    var max = document.documentElement.scrollHeight - window.innerHeight;
    if (max > 0) window.scrollTo(0, Math.round(saved * max));
    sent = Math.round(saved * 1000) / 1000;
  }
  // opened: read (unless the person just marked it unread)
  if (!/[?&]done=unread\b/.test(location.search)) {
    setTimeout(function () { sent = -1; report(false); updateRead(true); }, 600);
  }
  window.addEventListener("scroll", soon, { passive: true });
  window.addEventListener("pagehide", function () { if (timer) { clearTimeout(timer); report(true); } });

  var note = document.getElementById("readnote");
  function updateRead(read) {
    var form = document.querySelector('form[data-reading="read"]');
    if (!form) return;
    form.querySelector('input[name="read"]').value = read ? "0" : "1";
    document.getElementById("readstate").textContent = read ? "Mark unread" : "Mark read";
    if (note) note.textContent = note.textContent.replace(/^(unread|read)/, read ? "read" : "unread");
  }

  // Star and Mark read answer in place; Mark unread leaves for the library
  document.querySelectorAll("form[data-reading]").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      var kind = form.getAttribute("data-reading");
      if (kind === "read" && form.querySelector('input[name="read"]').value === "0") return; // the redirect
      e.preventDefault();
      var fields = {};
      new FormData(form).forEach(function (v, k) { fields[k] = v; });
      post(kind === "star" ? "/star" : "/read", fields).then(function (res) {
        if (!res.ok) { form.submit(); return null; }
        return res.json();
      }).then(function (a) {
        if (!a) return;
        if (kind === "star") {
          var b = document.getElementById("star");
          form.querySelector('input[name="star"]').value = a.starred ? "0" : "1";
          b.textContent = a.starred ? "★ Starred" : "☆ Star";
          b.setAttribute("aria-pressed", a.starred ? "true" : "false");
        } else {
          updateRead(a.read);
        }
      }).catch(function () { form.submit(); });
    });
  });
})();
