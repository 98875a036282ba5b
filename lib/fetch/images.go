package fetch

// The images of an item (docs/fetch.md "Images"): ll-parse lists the main
// content's images in the record; ll-index fetches them here, before it
// stores the item, so the bytes never travel in the record stream. They
// are fetched with the page's trust rules and stricter ones: http(s) only,
// every redirect hop checked, --public-only when the page had it, and in
// any case no address that is not public unless it is the page's own
// server; one attempt each, a timeout per image and per item, caps on the
// count and the bytes, and only real raster images, known by their bytes.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// Defaults of ImageOptions.
const (
	DefaultMaxImages      = 20
	DefaultMaxImageBytes  = 4 << 20
	DefaultMaxItemImages  = 16 << 20
	DefaultImageTimeout   = 15 * time.Second
	DefaultImagesDeadline = 60 * time.Second
)

// Reasons an image has no stored copy (record.Image.Error).
const (
	ImageTooMany   = "too_many_images" // past MaxImages
	ImageItemFull  = "item_bytes_cap"  // the item's bytes are spent
	ImageTooLarge  = "too_large"       // over the per-image cap
	ImageBadType   = "bad_type"        // not PNG, JPEG, GIF, WebP or AVIF by its bytes
	ImageBlocked   = "blocked_address" // not a public address, nor the page's server
	ImageStatus    = "http_status"     // not a 2xx answer
	ImageTimeout   = "timeout"         // the image's or the item's time ran out
	ImageFailed    = "connection"      // anything else on the way
	ImageBadURL    = "bad_url"         // not an http(s) address
	ImageRedirects = "bad_redirect"    // too many redirects, or to another scheme
)

// ImageOptions caps the images of one item; a zero field takes its default.
type ImageOptions struct {
	MaxImages     int           // images fetched per item
	MaxImageBytes int64         // one image, after content decoding
	MaxItemBytes  int64         // all images of an item together
	Timeout       time.Duration // one image: connect, redirects, body
	Deadline      time.Duration // all images of an item
}

// WithDefaults is o with its zero fields set to their defaults.
func (o ImageOptions) WithDefaults() ImageOptions {
	o.setDefaults()
	return o
}

func (o *ImageOptions) setDefaults() {
	orDefault(&o.MaxImages, DefaultMaxImages)
	orDefault(&o.MaxImageBytes, DefaultMaxImageBytes)
	orDefault(&o.MaxItemBytes, DefaultMaxItemImages)
	orDefault(&o.Timeout, DefaultImageTimeout)
	orDefault(&o.Deadline, DefaultImagesDeadline)
}

// imageBlocked is the error of the image dial hook.
type imageBlocked struct{ addr string }

func (e *imageBlocked) Error() string {
	return e.addr + " is not a public address, nor the page's own server"
}

// Images fetches imgs, the images of the page at page (its final URL), in
// place: an image fetched sets Data, ContentType and Bytes; one that is
// not sets Error to one of the Image* reasons. Images are fetched one
// after the other, each once, in order, until the caps or the deadline
// are reached. It returns only when ctx ends (ctx's error) or when every
// image has an answer.
func (f *Fetcher) Images(ctx context.Context, page string, imgs []record.Image, o ImageOptions) error {
	o.setDefaults()
	if len(imgs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	own := f.pageServer(ctx, page)
	tr := newTransport(f.opts, func(network, address string, _ syscall.RawConn) error {
		return f.imageDial(address, own)
	})
	tr.Proxy = nil // through a proxy the guard would only see the proxy
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	left := o.MaxItemBytes
	n := 0
	for i := range imgs {
		im := &imgs[i]
		im.Data, im.ContentType, im.Bytes, im.Error = nil, "", 0, ""
		switch {
		case n == o.MaxImages:
			im.Error = ImageTooMany
			continue
		case left <= 0:
			im.Error = ImageItemFull
			continue
		}
		if err := ctx.Err(); err != nil {
			im.Error = ImageTimeout
			continue
		}
		n++
		limit := min(o.MaxImageBytes, left)
		data, mt, reason := f.image(ctx, client, im.URL, limit, o.Timeout)
		if reason == ImageTooLarge && limit < o.MaxImageBytes {
			reason = ImageItemFull
		}
		if reason != "" {
			im.Error = reason
			continue
		}
		im.Data, im.ContentType, im.Bytes = data, mt, int64(len(data))
		left -= int64(len(data))
	}
	return nil
}

// image makes one GET of an image and returns its bytes and type, or the
// reason it has none.
func (f *Fetcher) image(ctx context.Context, client *http.Client, target string, limit int64, timeout time.Duration) ([]byte, string, string) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", ImageBadURL
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", ImageBadURL
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept-Encoding", "gzip, br")
	req.Header.Set("Accept", "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", imageReason(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", ImageStatus
	}
	encs := contentEncodings(resp.Header.Values("Content-Encoding"))
	if len(encs) == 0 && resp.ContentLength > limit {
		return nil, "", ImageTooLarge
	}
	body, err := decoding(resp.Body, encs)
	if err != nil {
		return nil, "", ImageBadType
	}
	data, err := readCapped(body, limit, resp.ContentLength)
	if err != nil {
		return nil, "", imageReason(ctx, err)
	}
	mt := ImageType(data)
	if mt == "" {
		return nil, "", ImageBadType
	}
	return data, mt, ""
}

func imageReason(ctx context.Context, err error) string {
	var blocked *imageBlocked
	var refused *blockedError
	switch {
	case errors.Is(err, ErrTooLarge):
		return ImageTooLarge
	case errors.As(err, &blocked), errors.As(err, &refused):
		return ImageBlocked
	case errors.Is(err, errTooManyRedirects), errors.Is(err, errBadRedirect):
		return ImageRedirects
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
		return ImageTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ImageTimeout
	}
	return ImageFailed
}

// imageDial is the image client's dial hook: a public address, or one of
// the page's own server (own: its addresses at its port), and never a
// non-public one under --public-only.
func (f *Fetcher) imageDial(address string, own map[netip.AddrPort]bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		host, _, _ := net.SplitHostPort(address)
		return &imageBlocked{addr: strconv.Quote(host)}
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if !f.blocked(ap) {
		return nil
	}
	if !f.opts.PublicOnly && own[ap] {
		return nil
	}
	return &imageBlocked{addr: ap.String()}
}

// pageServer is the set of addresses (with the port) of the page's own
// server: its host, resolved once now. An image there may be fetched
// from a private address as the page itself was (wiki.lan's images on
// wiki.lan). Empty for a page that is not an http(s) URL.
func (f *Fetcher) pageServer(ctx context.Context, page string) map[netip.AddrPort]bool {
	own := map[netip.AddrPort]bool{}
	u, err := url.Parse(page)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return own
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return own
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		rctx, cancel := context.WithTimeout(ctx, f.opts.ConnectTimeout)
		addrs, _ = net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		cancel()
	}
	for _, a := range addrs {
		own[netip.AddrPortFrom(a.Unmap(), uint16(p))] = true
	}
	return own
}

// ImageType is the media type of an image the reader may show, known by
// its first bytes: PNG, JPEG, GIF, WebP or AVIF; "" for anything else
// (SVG, which can carry script, HTML, text, other formats).
func ImageType(b []byte) string {
	switch {
	case len(b) >= 8 && string(b[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png"
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "image/jpeg"
	case len(b) >= 6 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a"):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case len(b) >= 12 && string(b[4:8]) == "ftyp" && (string(b[8:12]) == "avif" || string(b[8:12]) == "avis"):
		return "image/avif"
	}
	return ""
}

// ImageSummary is a short account of what Images did, for diagnostics:
// "3 of 5 images stored (too_large 1, bad_type 1)".
func ImageSummary(imgs []record.Image) string {
	stored := 0
	why := map[string]int{}
	var order []string
	for _, im := range imgs {
		if im.Error == "" && im.Data != nil {
			stored++
			continue
		}
		if why[im.Error] == 0 {
			order = append(order, im.Error)
		}
		why[im.Error]++
	}
	s := fmt.Sprintf("%d of %d images stored", stored, len(imgs))
	if len(order) > 0 {
		parts := make([]string, len(order))
		for i, k := range order {
			parts[i] = fmt.Sprintf("%s %d", k, why[k])
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
