// vectorscan.c: ll_nearest and ll_dot, the SQL functions of a semantic
// search's first pass (see vectorscan.go). They are compiled by cgo with
// the package and call the SQLite that github.com/mattn/go-sqlite3 links
// into the binary; the declarations and constants are SQLite's own
// (sqlite3.h).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "vectorscan.h"

#define LL_MAX_WORDS 128     // 8,192 bits
#define LL_MAX_KEEP 1000000

// One chunk kept by the first pass.
typedef struct { int64_t dist, chunk, seq; } ll_near;

typedef struct {
	int started, failed;
	const char *err;
	int words, mode;        // mode: LL_EVERY, LL_ONLY_SET or LL_BUT_SET
	int64_t keep, n;
	uint64_t q[LL_MAX_WORDS];
	int64_t *set;           // sorted item seqs
	int64_t nset;
	ll_near *heap;          // max-heap by (dist, chunk): the root is the farthest kept
} ll_state;

static uint64_t ll_le64(const unsigned char *p) {
	uint64_t x;
	memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

static int ll_farther(const ll_near *a, const ll_near *b) {
	return a->dist != b->dist ? a->dist > b->dist : a->chunk > b->chunk;
}

static void ll_down(ll_near *h, int64_t n, int64_t i) {
	for (;;) {
		int64_t l = 2 * i + 1, m = i;
		if (l < n && ll_farther(&h[l], &h[m])) m = l;
		if (l + 1 < n && ll_farther(&h[l + 1], &h[m])) m = l + 1;
		if (m == i) return;
		ll_near t = h[i]; h[i] = h[m]; h[m] = t;
		i = m;
	}
}

static void ll_up(ll_near *h, int64_t i) {
	while (i > 0) {
		int64_t p = (i - 1) / 2;
		if (!ll_farther(&h[i], &h[p])) return;
		ll_near t = h[i]; h[i] = h[p]; h[p] = t;
		i = p;
	}
}

static int ll_in_set(const ll_state *s, int64_t seq) {
	int64_t lo = 0, hi = s->nset;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (s->set[mid] < seq) lo = mid + 1; else hi = mid;
	}
	return lo < s->nset && s->set[lo] == seq;
}

static void ll_fail(ll_state *s, const char *err) {
	if (!s->failed) { s->failed = 1; s->err = err; }
}

// ll_consider keeps the chunks of one item (n chunks: ids and codes)
// nearer than the farthest kept.
static void ll_consider(ll_state *s, int64_t seq, const unsigned char *ids, const unsigned char *codes, int64_t n) {
	if (s->mode == LL_ONLY_SET && !ll_in_set(s, seq)) return;
	if (s->mode == LL_BUT_SET && ll_in_set(s, seq)) return;
	int w = s->words;
	for (int64_t c = 0; c < n; c++) {
		const unsigned char *code = codes + (size_t)c * w * 8;
		int64_t limit = s->n == s->keep ? s->heap[0].dist : (int64_t)w * 64;
		int64_t d = 0;
		int i = 0;
		for (; i + 4 <= w; i += 4) {
			d += __builtin_popcountll(s->q[i] ^ ll_le64(code + 8 * i)) +
				__builtin_popcountll(s->q[i + 1] ^ ll_le64(code + 8 * i + 8)) +
				__builtin_popcountll(s->q[i + 2] ^ ll_le64(code + 8 * i + 16)) +
				__builtin_popcountll(s->q[i + 3] ^ ll_le64(code + 8 * i + 24));
			if (d > limit) break;
		}
		if (d > limit) continue;
		for (; i < w; i++) d += __builtin_popcountll(s->q[i] ^ ll_le64(code + 8 * i));
		if (d > limit) continue;
		ll_near e = { d, (int64_t)ll_le64(ids + 8 * c), seq };
		if (s->n < s->keep) {
			s->heap[s->n] = e;
			ll_up(s->heap, s->n);
			s->n++;
		} else if (ll_farther(&s->heap[0], &e)) {
			s->heap[0] = e;
			ll_down(s->heap, s->n, 0);
		}
	}
}

static int ll_start(ll_state *s, sqlite3_value **argv) {
	int qb = sqlite3_value_bytes(argv[4]);
	const unsigned char *q = sqlite3_value_blob(argv[4]);
	if (qb <= 0 || qb % 8 != 0 || qb / 8 > LL_MAX_WORDS || q == NULL) { ll_fail(s, "ll_nearest: bad query code"); return 0; }
	s->words = qb / 8;
	for (int i = 0; i < s->words; i++) s->q[i] = ll_le64(q + 8 * i);
	s->keep = sqlite3_value_int64(argv[5]);
	if (s->keep < 1 || s->keep > LL_MAX_KEEP) { ll_fail(s, "ll_nearest: bad keep"); return 0; }
	s->mode = (int)sqlite3_value_int64(argv[6]);
	if (s->mode < LL_EVERY || s->mode > LL_BUT_SET) { ll_fail(s, "ll_nearest: bad filter mode"); return 0; }
	if (s->mode != LL_EVERY) {
		int sb = sqlite3_value_bytes(argv[7]);
		const unsigned char *set = sqlite3_value_blob(argv[7]);
		if (sb < 0 || sb % 8 != 0 || (sb > 0 && set == NULL)) { ll_fail(s, "ll_nearest: bad filter set"); return 0; }
		s->nset = sb / 8;
		if (s->nset > 0) {
			s->set = sqlite3_malloc64((uint64_t)sb);
			if (s->set == NULL) { ll_fail(s, "nomem"); return 0; }
			for (int64_t i = 0; i < s->nset; i++) {
				s->set[i] = (int64_t)ll_le64(set + 8 * i);
				if (i > 0 && s->set[i] < s->set[i - 1]) { ll_fail(s, "ll_nearest: filter set not sorted"); return 0; }
			}
		}
	}
	s->heap = sqlite3_malloc64((uint64_t)s->keep * sizeof(ll_near));
	if (s->heap == NULL) { ll_fail(s, "nomem"); return 0; }
	return 1;
}

// ll_nearest(seq, members, chunk_ids, codes, query, keep, mode, set):
// an aggregate over rows of codes, either one item's (seq, NULL members)
// or a block's (NULL seq; members: per item its seq and chunk count, two
// little-endian int64), whose value is the keep chunks nearest the query
// code by Hamming distance, then chunk id: 24 bytes each (distance, chunk
// id, item seq; little-endian int64), nearest first. Every length is
// checked; a row that does not add up fails the statement.
static void ll_nearest_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	ll_state *s = sqlite3_aggregate_context(ctx, sizeof(ll_state));
	if (s == NULL) { sqlite3_result_error_nomem(ctx); return; }
	if (s->failed) return;
	if (!s->started) {
		s->started = 1;
		if (!ll_start(s, argv)) return;
	}
	int w = s->words;
	int ib = sqlite3_value_bytes(argv[2]);
	const unsigned char *ids = sqlite3_value_blob(argv[2]);
	int cb = sqlite3_value_bytes(argv[3]);
	const unsigned char *codes = sqlite3_value_blob(argv[3]);
	if (ib <= 0) return;
	if (ids == NULL || codes == NULL || ib % 8 != 0 || (int64_t)cb != (int64_t)(ib / 8) * w * 8) {
		ll_fail(s, "ll_nearest: codes and chunk ids do not agree");
		return;
	}
	int64_t n = ib / 8;
	if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
		ll_consider(s, sqlite3_value_int64(argv[0]), ids, codes, n);
		return;
	}
	int mb = sqlite3_value_bytes(argv[1]);
	const unsigned char *m = sqlite3_value_blob(argv[1]);
	if (m == NULL || mb % 16 != 0) { ll_fail(s, "ll_nearest: malformed block members"); return; }
	int64_t off = 0;
	for (int i = 0; i + 16 <= mb; i += 16) {
		int64_t seq = (int64_t)ll_le64(m + i);
		int64_t c = (int64_t)ll_le64(m + i + 8);
		if (c < 0 || c > n - off) { ll_fail(s, "ll_nearest: malformed block members"); return; }
		ll_consider(s, seq, ids + 8 * off, codes + (size_t)off * w * 8, c);
		off += c;
	}
	if (off != n) ll_fail(s, "ll_nearest: malformed block members");
}

static int ll_cmp(const void *a, const void *b) {
	const ll_near *x = a, *y = b;
	return ll_farther(x, y) ? 1 : ll_farther(y, x) ? -1 : 0;
}

static void ll_nearest_final(sqlite3_context *ctx) {
	ll_state *s = sqlite3_aggregate_context(ctx, 0);
	if (s == NULL) { sqlite3_result_blob(ctx, "", 0, SQLITE_TRANSIENT); return; }
	if (s->failed) {
		if (s->err[0] == 'n') sqlite3_result_error_nomem(ctx);
		else sqlite3_result_error(ctx, s->err, -1);
	} else {
		qsort(s->heap, (size_t)s->n, sizeof(ll_near), ll_cmp);
		unsigned char *out = sqlite3_malloc64((uint64_t)s->n * 24 + 1);
		if (out == NULL) sqlite3_result_error_nomem(ctx);
		else {
			for (int64_t i = 0; i < s->n; i++) {
				int64_t v[3] = { s->heap[i].dist, s->heap[i].chunk, s->heap[i].seq };
				for (int k = 0; k < 3; k++) {
					uint64_t x = (uint64_t)v[k];
					for (int b = 0; b < 8; b++) out[24 * i + 8 * k + b] = (unsigned char)(x >> (8 * b));
				}
			}
			sqlite3_result_blob(ctx, out, (int)(s->n * 24), sqlite3_free);
		}
	}
	sqlite3_free(s->heap);
	sqlite3_free(s->set);
	s->heap = NULL;
	s->set = NULL;
}

// ll_dot(a, b): the dot product of two vectors of little-endian float32
// of the same length (NULL when they differ or are empty), summed in
// float32 in order, as the Go code it replaces did.
static void ll_dot(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	int ab = sqlite3_value_bytes(argv[0]);
	const unsigned char *a = sqlite3_value_blob(argv[0]);
	int bb = sqlite3_value_bytes(argv[1]);
	const unsigned char *b = sqlite3_value_blob(argv[1]);
	if (ab <= 0 || ab != bb || ab % 4 != 0 || a == NULL || b == NULL) { sqlite3_result_null(ctx); return; }
	float dot = 0;
	for (int i = 0; i < ab; i += 4) {
		uint32_t x = (uint32_t)a[i] | (uint32_t)a[i + 1] << 8 | (uint32_t)a[i + 2] << 16 | (uint32_t)a[i + 3] << 24;
		uint32_t y = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 | (uint32_t)b[i + 3] << 24;
		float fx, fy;
		memcpy(&fx, &x, 4);
		memcpy(&fy, &y, 4);
		dot += fx * fy;
	}
	sqlite3_result_double(ctx, (double)dot);
}

// ll_vector_init is the auto-extension entry point: it runs on every new
// connection.
static int ll_vector_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
	(void)err;
	(void)api;
	int rc = sqlite3_create_function_v2(db, "ll_nearest", 8, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
		ll_nearest_step, ll_nearest_final, NULL);
	if (rc != SQLITE_OK) return rc;
	return sqlite3_create_function_v2(db, "ll_dot", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, ll_dot, NULL, NULL, NULL);
}

int ll_register_vector_funcs(void) {
	// sqlite3_auto_extension takes the entry point as void (*)(void) and
	// calls it with the three arguments of an extension's init
	return sqlite3_auto_extension((void (*)(void))ll_vector_init);
}
