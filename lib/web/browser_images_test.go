package web_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/ledger"
)

// chartPNG draws a small bar chart: a real image whose pixels the test
// can check in the page.
func chartPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 320, 160))
	for y := 0; y < 160; y++ {
		for x := 0; x < 320; x++ {
			img.Set(x, y, color.RGBA{250, 250, 245, 255})
		}
	}
	bars := []struct {
		h int
		c color.RGBA
	}{{120, color.RGBA{200, 60, 50, 255}}, {70, color.RGBA{50, 120, 200, 255}}, {40, color.RGBA{60, 160, 80, 255}}}
	for i, b := range bars {
		for y := 150 - b.h; y < 150; y++ {
			for x := 30 + i*100; x < 100+i*100; x++ {
				img.Set(x, y, b.c)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBrowserStoredImage: a page with a figure, saved through the add
// form and ingested by the worker, gets its image stored in the ledger;
// with the page's site stopped, the reader shows the image from the app
// (/items/ID/images/1, a PNG, nosniff) and, for an image that could not
// be stored (HTML served as a PNG), its alt text and caption. The
// browser never asks the site for an image. Screenshot: reader-images.png.
func TestBrowserStoredImage(t *testing.T) {
	exe := chromium(t)
	chart := chartPNG(t)
	para := func(s string) string { return "<p>" + strings.Repeat(s+" ", 4) + "</p>" }
	page := `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Three sorts, one chart</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>Three sorts, one chart</h1>` +
		para("The three sorts were run on the same million integers, ten times each, and the medians are drawn below.") +
		`<figure><img src="/img/chart.png" alt="Bar chart of the three median times"><figcaption>Figure 1: median times, lower is better.</figcaption></figure>` +
		para("Radix sort wins on this input, by a wide margin over the comparison sorts that the standard library offers.") +
		`<figure><img src="/img/broken.png" alt="Photo of the test machine"><figcaption>Figure 2: the laptop used.</figcaption></figure>` +
		para("The machine was an ordinary laptop, plugged in, with nothing else running while the benchmarks were taken.") +
		`</article></body></html>`
	var browserAsked atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/img/") && !strings.HasPrefix(r.UserAgent(), "linkledger/") {
			browserAsked.Add(1)
		}
		switch r.URL.Path {
		case "/img/chart.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(chart)
		case "/img/broken.png":
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "<!doctype html><p>not an image</p>")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page)
		}
	}))
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(a.open),
		chromedp.Navigate(a.base+"/"),
		chromedp.SendKeys(chromedp.CSS("#add-url"), site.URL+"/sorts"),
		navigates(chromedp.Click(chromedp.CSS(`form[action="/save"] button`))),
		chromedp.WaitVisible(chromedp.CSS(".flash")),
	)
	until(t, ctx, a.base+"/", `.item .state-parsed`)
	id := eval[string](t, ctx, `document.querySelector('.item[data-id]').getAttribute('data-id')`)
	// the images are stored just after the item's content
	deadline := time.Now().Add(60 * time.Second)
	for {
		rec, err := l.ShowID(context.Background(), id, ledger.ShowOptions{Markdown: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Images) == 2 && rec.Images[0].ContentType != "" && rec.Images[1].Error != "" {
			if rec.Images[0].ContentType != "image/png" || rec.Images[0].Bytes != int64(len(chart)) || rec.Images[1].Error != "bad_type" {
				t.Fatalf("images stored: %+v", rec.Images)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("images not stored: %+v", rec.Images)
		}
		time.Sleep(200 * time.Millisecond)
	}
	site.Close() // offline from here: the reader has only the ledger

	run(t, ctx, chromedp.EmulateViewport(900, 1000), chromedp.Navigate(a.base+"/items/"+id), chromedp.WaitVisible(chromedp.CSS("#text .doc")))
	deadline = time.Now().Add(30 * time.Second)
	for !eval[bool](t, ctx, `(() => { const i = document.querySelector('#text img.stored'); return !!i && i.complete && i.naturalWidth > 0 })()`) {
		if time.Now().After(deadline) {
			t.Fatal("the stored image did not load in the reader")
		}
		time.Sleep(100 * time.Millisecond)
	}
	checks := map[string]string{
		"stored images": `String(document.querySelectorAll('#text img').length)`,
		"src":           `document.querySelector('#text img.stored').getAttribute('src')`,
		"size":          `document.querySelector('#text img.stored').naturalWidth + 'x' + document.querySelector('#text img.stored').naturalHeight`,
		"alt":           `document.querySelector('#text img.stored').alt`,
		"captions":      `[...document.querySelectorAll('#text figcaption')].map(c => c.textContent).join('|')`,
		"fallback":      `document.querySelector('#text .img') ? document.querySelector('#text .img').textContent : ''`,
		// the pixel in the middle of the first bar is its red
		"pixel": `(() => { const i = document.querySelector('#text img.stored'); const c = document.createElement('canvas');
			c.width = i.naturalWidth; c.height = i.naturalHeight; const x = c.getContext('2d'); x.drawImage(i, 0, 0);
			return Array.from(x.getImageData(65, 100, 1, 1).data.slice(0, 3)).join(',') })()`,
	}
	want := map[string]string{
		"stored images": "1",
		"src":           "/items/" + id + "/images/1",
		"size":          "320x160",
		"alt":           "Bar chart of the three median times",
		"captions":      "Figure 1: median times, lower is better.|Figure 2: the laptop used.",
		"fallback":      "image Photo of the test machine open",
		"pixel":         "200,60,50",
	}
	for name, js := range checks {
		if got := eval[string](t, ctx, js); got != want[name] {
			t.Errorf("%s: %q, want %q", name, got, want[name])
		}
	}
	eval[bool](t, ctx, `document.querySelector('#text figure').scrollIntoView({block: 'center'}), true`)
	shot(t, ctx, "reader-images")
	if n := browserAsked.Load(); n != 0 {
		t.Errorf("the browser asked the site for an image %d times", n)
	}

	// the app serves the copy with its type, nosniff and the CSP; no
	// image at another position or a position that is not a number
	for path, want := range map[string]string{
		"/items/" + id + "/images/1": fmt.Sprintf("200|image/png|nosniff|true|%d", len(chart)),
		"/items/" + id + "/images/2": "404|text/plain; charset=utf-8|nosniff|true|",
		"/items/" + id + "/images/x": "404|text/plain; charset=utf-8|nosniff|true|",
	} {
		got := eval[string](t, ctx, fmt.Sprintf(`(() => { const x = new XMLHttpRequest(); x.open('GET', %q, false);
			x.overrideMimeType('text/plain; charset=x-user-defined'); x.send();
			return [x.status, x.getResponseHeader('content-type'), x.getResponseHeader('x-content-type-options'),
				(x.getResponseHeader('content-security-policy') || '').includes("img-src 'self'"),
				x.status == 200 ? x.responseText.length : ''].join('|') })()`, path))
		if got != want {
			t.Errorf("GET %s: %s, want %s", path, got, want)
		}
	}
}
