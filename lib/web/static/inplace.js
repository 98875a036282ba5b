// linkledger ui: actions in place and live status (docs/ui.md "Actions in
// place"). Every form still posts without this script; with it, the
// reader's forms post with fetch and the parts of the page that changed
// are swapped in, so the reader keeps their place, and the inbox's lists
// follow the worker without a reload and without touching a form that has
// focus or content.
(function () {
  "use strict";

  // The parts of the reader an action may change, by id: their children
  // are swapped (the elements stay, with their listeners).
  var READER_PARTS = ["r-head", "tags-box", "text", "anns-box", "item-box"];

  var toastTimer = null;
  // say shows a short message at the bottom of the window (status, or
  // alert for an error), where it is seen however far down the page is.
  function say(msg, isError) {
    var t = document.getElementById("toast");
    if (!t) {
      t = document.createElement("div");
      t.id = "toast";
      t.className = "toast";
      document.body.appendChild(t);
    }
    t.setAttribute("role", isError ? "alert" : "status");
    t.classList.toggle("error", !!isError);
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, isError ? 9000 : 3500);
  }

  // errorText is the message of an error answer: the page's main text, or
  // the plain text the security layer answers with.
  function errorText(res, body) {
    var ct = res.headers.get("Content-Type") || "";
    if (ct.indexOf("text/html") === 0) {
      var doc = new DOMParser().parseFromString(body, "text/html");
      var m = doc.querySelector("main .error") || doc.querySelector("main");
      if (m && m.textContent.trim()) return m.textContent.trim();
    }
    return body.trim() || (res.status + " " + res.statusText);
  }

  // post sends body (form's fields, as its submitter would send them) to
  // form's action with fetch, asking for the fragment named kind; then(html) gets a 2xx answer's text, and an error
  // answer's message goes to fail(msg).
  function post(form, body, kind, then, fail) {
    return fetch(form.action, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Fragment": kind, "Content-Type": "application/x-www-form-urlencoded" },
      body: body
    }).then(function (res) {
      return res.text().then(function (body) {
        if (res.ok) then(body);
        else fail(errorText(res, body), res.status);
      });
    }).catch(function () { fail("The app could not be reached: is linkledger ui still running?", 0); });
  }

  // busy reports whether el holds the focus or a field with something a
  // person typed or chose: such a part is never swapped.
  function busy(el) {
    if (el.contains(document.activeElement) && document.activeElement !== document.body) return true;
    var fields = el.querySelectorAll("input, textarea, select");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      var type = (f.type || "").toLowerCase();
      if (type === "hidden" || type === "submit" || type === "button") continue;
      if (type === "file") { if (f.files && f.files.length) return true; continue; }
      if (type === "checkbox" || type === "radio") { if (f.checked !== f.defaultChecked) return true; continue; }
      if (f.tagName.toLowerCase() === "select") {
        for (var k = 0; k < f.options.length; k++) if (f.options[k].selected !== f.options[k].defaultSelected) return true;
        continue;
      }
      // typed since it was drawn, or drawn with the person's own text (the
      // add form given back with its error)
      var texty = f.tagName.toLowerCase() === "textarea" || ["text", "url", "search", "email", ""].indexOf(type) >= 0;
      if (f.value !== f.defaultValue || (texty && f.value !== "")) return true;
    }
    return false;
  }

  // swapChildren moves the children of from into to, in place of its own.
  function swapChildren(to, from) {
    var frag = document.createDocumentFragment();
    while (from.firstChild) frag.appendChild(from.firstChild);
    to.replaceChildren(frag);
    if (from.className !== to.className) to.className = from.className;
  }

  // Reader: its forms post in place.
  function reader() {
    var article = document.querySelector("article.reader");
    if (!article) return;
    document.addEventListener("submit", function (e) {
      var form = e.target;
      if (!(form instanceof HTMLFormElement) || !article.contains(form)) return;
      // star and read/unread are reading.js's (a handler of its own, or a redirect)
      if (e.defaultPrevented || form.hasAttribute("data-reading")) return;
      if ((form.method || "").toLowerCase() !== "post" || /\/retry$/.test(form.action)) return;
      e.preventDefault();
      var submitter = e.submitter || null;
      // focus goes back to the pressed control only when it had it (a
      // keyboard's press; not the selection bar's, which keeps the text's)
      var keepId = submitter && document.activeElement === submitter && submitter.id;
      var y = window.scrollY;
      // the fields before the buttons are disabled (a disabled submitter sends nothing)
      var body = new URLSearchParams(new FormData(form, submitter || undefined)).toString();
      var buttons = form.querySelectorAll("button");
      buttons.forEach(function (b) { b.disabled = true; });
      post(form, body, "reader", function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        READER_PARTS.forEach(function (id) {
          var now = document.getElementById(id), next = doc.getElementById(id);
          if (now && next) swapChildren(now, next);
        });
        if (form.id === "annotate") form.reset();
        buttons.forEach(function (b) { b.disabled = false; });
        var flash = doc.getElementById("flash");
        if (flash && flash.textContent.trim()) say(flash.textContent.trim(), false);
        // the same control, when it is still there, keeps the focus
        var again = keepId && document.getElementById(keepId);
        if (again) again.focus({ preventScroll: true });
        window.scrollTo(window.scrollX, y);
      }, function (msg) {
        buttons.forEach(function (b) { b.disabled = false; });
        say(msg, true);
      });
    }, true);
  }

  // Live status: while items wait for the worker, poll the counts; when
  // they change, fetch this page again and swap its sections, each but
  // the ones with a form that has focus or content (a URL being typed
  // stays as it is).
  function live() {
    var main = document.getElementById("main");
    if (!main) return;
    function waiting() {
      var counts = document.getElementById("counts");
      return (counts && counts.getAttribute("data-worker") === "true" && document.querySelector(".item.pending")) ||
        document.querySelector("[data-live]");
    }
    if (!waiting()) return;
    var last = null, idle = 0;
    function refresh() {
      // the page as a GET gives it; the answer to a save posted with an
      // error (at /save) is the inbox's
      var from = location.pathname === "/save" ? "/" : location.pathname + location.search;
      return fetch(from, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) throw new Error(String(r.status));
        return r.text();
      }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var next = doc.getElementById("main");
        if (!next) return;
        if (document.querySelector("article.reader")) {
          READER_PARTS.forEach(function (id) {
            var now = document.getElementById(id), nx = doc.getElementById(id);
            if (now && nx && !busy(now)) swapChildren(now, nx);
          });
          var art = document.querySelector("article.reader"), nart = next.querySelector("article.reader");
          if (art && nart && !nart.hasAttribute("data-live")) art.removeAttribute("data-live");
          return;
        }
        swapSections(main, next);
      });
    }
    function poll() {
      fetch("/status.json", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (c) {
        var s = JSON.stringify(c);
        var changed = last !== null && s !== last;
        last = s;
        return changed ? refresh() : null;
      }).then(function () {
        // nothing waits any more: a few slower looks, then stop (a save
        // from the page loads a new page, which starts again)
        idle = waiting() ? 0 : idle + 1;
        if (idle === 0) setTimeout(poll, 1500);
        else if (idle < 4) setTimeout(poll, 5000);
      }).catch(function () { setTimeout(poll, 5000); });
    }
    poll();
  }

  // sectionKey names a section of the inbox: its heading's id.
  function sectionKey(el) {
    return el.getAttribute("aria-labelledby") || el.id || "";
  }

  // swapSections makes main's sections those of next, in next's order:
  // a section the page has is replaced, unless busy (kept as it is); a
  // new one is added; one that is gone is removed, unless busy.
  function swapSections(main, next) {
    var now = {};
    Array.prototype.forEach.call(main.querySelectorAll(":scope > section"), function (s) { now[sectionKey(s)] = s; });
    var anchor = null; // the last section placed
    Array.prototype.forEach.call(next.querySelectorAll(":scope > section"), function (ns) {
      var key = sectionKey(ns), cur = now[key];
      delete now[key];
      var placed = cur;
      if (cur && !busy(cur)) {
        var imported = document.importNode(ns, true);
        cur.replaceWith(imported);
        placed = imported;
      } else if (!cur) {
        placed = document.importNode(ns, true);
        if (anchor) anchor.after(placed);
        else main.appendChild(placed);
      }
      anchor = placed;
    });
    Object.keys(now).forEach(function (k) { if (!busy(now[k])) now[k].remove(); });
  }

  document.addEventListener("DOMContentLoaded", function () { reader(); live(); });
})();
