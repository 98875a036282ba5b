package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// testPNG is a real 4×4 PNG.
func testPNG(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hostileImages is a loopback server of good and hostile images: the
// page's own server in the tests below.
func hostileImages(t *testing.T, other string) *httptest.Server {
	pngBytes := testPNG(t)
	var z bytes.Buffer
	gz := gzip.NewWriter(&z)
	gz.Write(pngBytes[:8])
	gz.Write(make([]byte, 10<<20))
	gz.Close()
	bomb := z.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok.png", "/ok2.png", "/ok3.png", "/ok4.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngBytes)
		case "/mislabelled.jpg": // a PNG served as text/html is still a PNG
			w.Header().Set("Content-Type", "text/html")
			w.Write(pngBytes)
		case "/huge.png": // declares 5 GB
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", "5000000000")
			w.Write(pngBytes)
		case "/endless.png": // no length, bytes without end
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngBytes)
			chunk := bytes.Repeat([]byte{0}, 32<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/slow.png": // a byte a while, never done
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngBytes[:8])
			for r.Context().Err() == nil {
				w.Write([]byte{0})
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		case "/page.png": // HTML labelled image/png
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "<!doctype html><script>alert(1)</script>")
		case "/script.png": // SVG with script labelled image/png
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
		case "/drawing.svg":
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>`)
		case "/bomb.png": // 10 MB of a PNG's first bytes and zeros in a little gzip
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		case "/gzipped.png": // a small PNG, gzipped: decoded and kept
			var z bytes.Buffer
			gz := gzip.NewWriter(&z)
			gz.Write(pngBytes)
			gz.Close()
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(z.Bytes())
		case "/gone.png":
			http.NotFound(w, r)
		case "/redirect.png": // to another server: not public, not the page's
			http.Redirect(w, r, other+"/secret.png", http.StatusFound)
		case "/loop.png":
			http.Redirect(w, r, "/loop.png", http.StatusFound)
		case "/file.png":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestImagesHostile fetches good and hostile images of a page on a
// loopback server: each good one is stored with the type its bytes say,
// each hostile one is refused with its reason and nothing stored, and a
// redirect to another server that is not public is refused without a
// request reaching it.
func TestImagesHostile(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(testPNG(t))
	}))
	defer other.Close()
	srv := hostileImages(t, other.URL)
	page := srv.URL + "/post"
	names := []string{"ok.png", "mislabelled.jpg", "huge.png", "endless.png", "slow.png", "page.png", "script.png", "bomb.png", "gzipped.png",
		"drawing.svg", "gone.png", "redirect.png", "loop.png", "file.png"}
	imgs := make([]record.Image, 0, len(names)+1)
	for _, n := range names {
		imgs = append(imgs, record.Image{URL: srv.URL + "/" + n})
	}
	imgs = append(imgs, record.Image{URL: "ftp://" + strings.TrimPrefix(srv.URL, "http://") + "/x.png"})
	f, _ := newFetcher(t, Options{})
	opts := ImageOptions{MaxImages: 20, MaxImageBytes: 64 << 10, MaxItemBytes: 1 << 20, Timeout: 2 * time.Second}
	if err := f.Images(context.Background(), page, imgs, opts); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, im := range imgs {
		got[im.URL[strings.LastIndex(im.URL, "/")+1:]] = im.ContentType + im.Error
		if (im.Error == "") != (im.Data != nil) || int64(len(im.Data)) != im.Bytes {
			t.Errorf("%s: error %q with %d bytes (Bytes %d)", im.URL, im.Error, len(im.Data), im.Bytes)
		}
	}
	want := map[string]string{
		"ok.png":          "image/png",
		"mislabelled.jpg": "image/png",
		"huge.png":        ImageTooLarge,
		"endless.png":     ImageTooLarge,
		"slow.png":        ImageTimeout,
		"page.png":        ImageBadType,
		"bomb.png":        ImageTooLarge,
		"gzipped.png":     "image/png",
		"script.png":      ImageBadType,
		"drawing.svg":     ImageBadType,
		"gone.png":        ImageStatus,
		"redirect.png":    ImageBlocked,
		"loop.png":        ImageRedirects,
		"file.png":        ImageRedirects,
		"x.png":           ImageBadURL,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the redirect target was reached %d times", n)
	}
	if !bytes.Equal(imgs[0].Data, testPNG(t)) {
		t.Errorf("stored bytes are not the image")
	}
}

// TestImagesCaps: past the count cap images are not fetched; past the
// item's bytes cap neither; a server the classifier calls public is
// fetched although it is not the page's; --public-only refuses even
// the page's own server.
func TestImagesCaps(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		w.Write(testPNG(t))
	}))
	defer other.Close()
	srv := hostileImages(t, other.URL)
	size := int64(len(testPNG(t)))
	list := func(urls ...string) []record.Image {
		var out []record.Image
		for _, u := range urls {
			out = append(out, record.Image{URL: u})
		}
		return out
	}
	reasons := func(imgs []record.Image) []string {
		var out []string
		for _, im := range imgs {
			out = append(out, im.ContentType+im.Error)
		}
		return out
	}
	ok := func(n string) string { return srv.URL + "/" + n }

	f, _ := newFetcher(t, Options{})
	imgs := list(ok("ok.png"), ok("ok2.png"), ok("ok3.png"), ok("ok4.png"))
	f.Images(context.Background(), srv.URL, imgs, ImageOptions{MaxImages: 2})
	if diff := cmp.Diff([]string{"image/png", "image/png", ImageTooMany, ImageTooMany}, reasons(imgs)); diff != "" {
		t.Errorf("count cap (-want +got):\n%s", diff)
	}

	imgs = list(ok("ok.png"), ok("ok2.png"), ok("ok3.png"))
	f.Images(context.Background(), srv.URL, imgs, ImageOptions{MaxItemBytes: 2*size + size/2})
	if diff := cmp.Diff([]string{"image/png", "image/png", ImageItemFull}, reasons(imgs)); diff != "" {
		t.Errorf("item bytes cap (-want +got):\n%s", diff)
	}

	// a public address (the classifier says so) is fetched
	otherAddr := netip.MustParseAddrPort(strings.TrimPrefix(other.URL, "http://"))
	pub, _ := newFetcher(t, Options{})
	pub.blocked = func(ap netip.AddrPort) bool { return ap != otherAddr }
	imgs = list(other.URL + "/a.png")
	pub.Images(context.Background(), srv.URL, imgs, ImageOptions{})
	if imgs[0].ContentType != "image/png" || otherHits.Load() != 1 {
		t.Errorf("public server: %+v, %d hits", imgs[0], otherHits.Load())
	}

	// --public-only: the page's own loopback server is refused too
	guarded, _ := newFetcher(t, Options{PublicOnly: true})
	imgs = list(ok("ok.png"))
	guarded.Images(context.Background(), srv.URL, imgs, ImageOptions{})
	if imgs[0].Error != ImageBlocked {
		t.Errorf("--public-only: %+v", imgs[0])
	}

	// the deadline of the item stops what is left
	imgs = list(ok("slow.png"), ok("ok.png"))
	f.Images(context.Background(), srv.URL, imgs, ImageOptions{Timeout: time.Minute, Deadline: 300 * time.Millisecond})
	if diff := cmp.Diff([]string{ImageTimeout, ImageTimeout}, reasons(imgs)); diff != "" {
		t.Errorf("item deadline (-want +got):\n%s", diff)
	}
}

func TestImageType(t *testing.T) {
	for in, want := range map[string]string{
		"\x89PNG\r\n\x1a\nrest":            "image/png",
		"\xff\xd8\xff\xe0":                 "image/jpeg",
		"GIF89a..":                         "image/gif",
		"RIFF\x00\x00\x00\x00WEBPVP8 ":     "image/webp",
		"\x00\x00\x00\x1cftypavif\x00\x00": "image/avif",
		"<svg xmlns='x'></svg>":            "",
		"<!doctype html>":                  "",
		"\x89PNG":                          "",
		"":                                 "",
	} {
		if got := ImageType([]byte(in)); got != want {
			t.Errorf("ImageType(%q) = %q, want %q", in, got, want)
		}
	}
}
