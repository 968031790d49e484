/* snapshot.c: the pieces of mdvec_snapshot / mdvec_restore; see snapshot.h.
 *
 * mjData is walked with MuJoCo's own field lists (mjxmacro.h: MJDATA_SCALAR, MJDATA_VECTOR,
 * MJDATA_ARENA_POINTERS), and mjModel with MJMODEL_POINTERS, so a MuJoCo release that adds a field adds it
 * to the blob too (the header's MuJoCo version keeps blobs of different releases apart).
 */
#include "snapshot.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <mujoco/mjxmacro.h>

/*---------------------------------- The cursor ----------------------------------------------------*/

void mdv_put(mdv_blob *b, const void *src, size_t n) {
  if (b->out && n) memcpy(b->out + b->at, src, n);
  b->at += n;
}

void mdv_put_u64(mdv_blob *b, uint64_t v) {
  mdv_put(b, &v, sizeof v);
}

void mdv_put_i64(mdv_blob *b, int64_t v) {
  mdv_put(b, &v, sizeof v);
}

void mdv_put_f64(mdv_blob *b, double v) {
  mdv_put(b, &v, sizeof v);
}

int mdv_blob_fail(mdv_blob *b, const char *fmt, ...) {
  if (!b->bad) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->msg, sizeof b->msg, fmt, ap);
    va_end(ap);
  }
  b->bad = 1;
  return -1;
}

int mdv_get(mdv_blob *b, void *dst, size_t n) {
  if (b->bad) return -1;
  if (n > b->size - b->at)
    return mdv_blob_fail(b, "truncated: a field of %zu bytes at byte %zu runs past the blob's %zu bytes", n, b->at,
                         b->size);
  if (dst && n) memcpy(dst, b->in + b->at, n);
  b->at += n;
  return 0;
}

uint64_t mdv_get_u64(mdv_blob *b) {
  uint64_t v = 0;
  return mdv_get(b, &v, sizeof v) ? 0 : v;
}

int64_t mdv_get_i64(mdv_blob *b) {
  int64_t v = 0;
  return mdv_get(b, &v, sizeof v) ? 0 : v;
}

double mdv_get_f64(mdv_blob *b) {
  double v = 0;
  return mdv_get(b, &v, sizeof v) ? 0 : v;
}

int64_t mdv_get_range(mdv_blob *b, int64_t lo, int64_t hi, const char *what) {
  int64_t v = mdv_get_i64(b);
  if (b->bad) return lo;
  if (v < lo || v > hi) {
    mdv_blob_fail(b, "%s is %lld, outside [%lld, %lld]", what, (long long)v, (long long)lo, (long long)hi);
    return lo;
  }
  return v;
}

/*---------------------------------- Checksum ------------------------------------------------------*/

/* xxHash64's primes and its round: each word is multiplied, rotated (high bits reach the low ones) and
 * multiplied again, so a change of any bit of a word changes the sum, and changes in two words do not cancel
 * as plain FNV's top bits can. */
#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull

static uint64_t rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

uint64_t mdv_hash(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h ^= rotl(w * P2, 31) * P1;
    h = rotl(h, 27) * P1 + P4;
  }
  if (n) { /* the tail, with its length, so "ab" and "ab\0" differ */
    uint64_t w = 0;
    memcpy(&w, p, n);
    h ^= rotl((w ^ ((uint64_t)n << 56)) * P2, 31) * P1;
    h = rotl(h, 27) * P1 + P4;
  }
  return h;
}

uint64_t mdv_hash_end(uint64_t h) {
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

/*---------------------------------- Generators ----------------------------------------------------*/

void mdv_pcg64_save(const mdv_pcg64 *g, mdv_blob *b) {
  mdv_put(b, &g->state, sizeof g->state);
  mdv_put(b, &g->inc, sizeof g->inc);
  mdv_put_i64(b, g->has_uint32);
  mdv_put_u64(b, g->uinteger);
}

void mdv_pcg64_load(mdv_pcg64 *g, mdv_blob *b, int apply) {
  mdv_pcg64 v;
  memset(&v, 0, sizeof v);
  mdv_get(b, &v.state, sizeof v.state);
  mdv_get(b, &v.inc, sizeof v.inc);
  v.has_uint32 = (int)mdv_get_range(b, 0, 1, "a PCG64 generator's has_uint32");
  v.uinteger = (uint32_t)mdv_get_range(b, 0, UINT32_MAX, "a PCG64 generator's buffered half");
  if (!b->bad && !(v.inc & 1)) mdv_blob_fail(b, "a PCG64 generator's increment is even (PCG64's is always odd)");
  if (apply && !b->bad) *g = v;
}

void mdv_mt19937_save(const mdv_mt19937 *g, mdv_blob *b) {
  mdv_put(b, g->key, sizeof g->key);
  mdv_put_i64(b, g->pos);
  mdv_put_i64(b, g->has_gauss);
  mdv_put_f64(b, g->gauss);
}

void mdv_mt19937_load(mdv_mt19937 *g, mdv_blob *b, int apply) {
  size_t at = b->at;
  mdv_get(b, NULL, sizeof g->key);
  int pos = (int)mdv_get_range(b, 0, MDV_MT19937_N, "a RandomState's position");
  int has_gauss = (int)mdv_get_range(b, 0, 1, "a RandomState's has_gauss");
  double gauss = mdv_get_f64(b);
  if (!apply || b->bad) return;
  memcpy(g->key, b->in + at, sizeof g->key);
  g->pos = pos;
  g->has_gauss = has_gauss;
  g->gauss = gauss;
}

/*---------------------------------- mjData --------------------------------------------------------*/

int mdv_data_savable(const mjData *d) {
  return d->nplugin == 0;
}

/* The scalars a blob does not carry: the target's thread pool, and the stack's position (the stack is empty
 * between calls and is not saved). */
static int transient_scalar(const char *name) {
  return !strcmp(name, "threadpool") || !strcmp(name, "pstack") || !strcmp(name, "pbase");
}

/* The scalars restore keeps as they are in the target: the transient ones and its sizes (checked equal). */
static int kept_scalar(const char *name) {
  return transient_scalar(name) || !strcmp(name, "narena") || !strcmp(name, "nbuffer") || !strcmp(name, "nplugin");
}

#define XNV X
#undef MJ_M
#undef MJ_D

/* Write n bytes as their length up to the last nonzero byte, then those bytes: mjData's solver statistics
 * (160 KB) are mostly the zeros of iterations and islands not used. */
static void put_trimmed(mdv_blob *b, const void *src, size_t n) {
  const unsigned char *p = src;
  for (uint64_t w[4] = {0}; n >= sizeof w;) { /* 32 bytes at a time from the end, then byte by byte */
    memcpy(w, p + n - sizeof w, sizeof w);
    if (w[0] | w[1] | w[2] | w[3]) break;
    n -= sizeof w;
  }
  while (n && !p[n - 1]) n--;
  mdv_put_u64(b, n);
  mdv_put(b, p, n);
}

/* Read what put_trimmed wrote for a field of n bytes into dst (when not NULL: the tail zeroed). */
static void get_trimmed(mdv_blob *b, void *dst, size_t n, const char *name) {
  uint64_t used = mdv_get_u64(b);
  if (!b->bad && used > n)
    mdv_blob_fail(b, "mjData field %s: %llu bytes, it has %zu", name, (unsigned long long)used, n);
  size_t at = b->at;
  if (mdv_get(b, NULL, (size_t)used) || !dst) return;
  memcpy(dst, b->in + at, (size_t)used);
  memset((unsigned char *)dst + used, 0, n - (size_t)used);
}

void mdv_data_save(const mjModel *m, const mjData *d, mdv_blob *b) {
  (void)m;
  static const unsigned char zeros[16];
#define X(type, name) mdv_put(b, transient_scalar(#name) ? (const void *)zeros : (const void *)&d->name, sizeof(type));
  MJDATA_SCALAR
#undef X
#define X(type, name, n1, n2) put_trimmed(b, d->name, sizeof(type) * (size_t)(n1) * (size_t)(n2));
  MJDATA_VECTOR
#undef X
#define X(type, name, nr, nc) mdv_put_i64(b, d->name ? (int64_t)((const char *)d->name - (const char *)d->arena) : -1);
  MJDATA_ARENA_POINTERS
#undef X
  mdv_put_u64(b, (uint64_t)d->nbuffer);
  mdv_put(b, d->buffer, (size_t)d->nbuffer);
  mdv_put_u64(b, (uint64_t)d->parena);
  mdv_put(b, d->arena, d->parena);
}

/* The number of arena pointers. */
enum {
#define X(type, name, nr, nc) MDV_ARENA_##name,
  MJDATA_ARENA_POINTERS
#undef X
    MDV_N_ARENA
};

/* Read one scalar of n bytes into dst; a one-byte scalar is a flag (mjtBool: C's bool from MuJoCo 4.0 on, where
 * any value but 0 and 1 is undefined behaviour): 0 or 1, else the blob fails. */
static void get_scalar(mdv_blob *b, void *dst, size_t n, const char *name) {
  unsigned char raw[16] = {0};
  if (n > sizeof raw) {
    mdv_blob_fail(b, "mjData field %s has %zu bytes", name, n);
    return;
  }
  if (mdv_get(b, raw, n)) return;
  if (n == 1 && raw[0] > 1) {
    mdv_blob_fail(b, "mjData flag %s is %d, not 0 or 1", name, raw[0]);
    return;
  }
  memcpy(dst, raw, n);
}

/* mjData's scalars, as MJDATA_SCALAR lists them (the saved ones, read before anything is written). */
typedef struct data_scalars_ {
#define X(type, name) type name;
  MJDATA_SCALAR
#undef X
} data_scalars;

void mdv_data_load(const mjModel *m, mjData *d, mdv_blob *b, int apply) {
  data_scalars sv, *s = &sv;
  memset(s, 0, sizeof *s);
#define X(type, name) get_scalar(b, &s->name, sizeof(type), #name);
  MJDATA_SCALAR
#undef X
  if (!b->bad && (s->narena != (size_t)d->narena || s->nbuffer != (size_t)d->nbuffer || s->nplugin != d->nplugin))
    mdv_blob_fail(b, "an mjData of another size (arena %zu, buffer %zu, %d plugins; this env's: %zu, %zu, %d)",
                  (size_t)s->narena, (size_t)s->nbuffer, s->nplugin, (size_t)d->narena, (size_t)d->nbuffer, d->nplugin);
  if (!b->bad && s->parena > (size_t)d->narena)
    mdv_blob_fail(b, "an mjData whose used arena (%zu bytes) exceeds its arena (%zu)", s->parena, (size_t)d->narena);
  if (!b->bad &&
      (s->ne < 0 || s->nf < 0 || s->nl < 0 || s->ncon < 0 || s->nefc < 0 || (int64_t)s->ne + s->nf + s->nl > s->nefc))
    mdv_blob_fail(b, "an mjData with inconsistent constraint counts (ne %d, nf %d, nl %d, nefc %d, ncon %d)", s->ne,
                  s->nf, s->nl, s->nefc, s->ncon);
  /* the vectors: read in place when applying (their sizes are the type's) */
#define X(type, name, n1, n2) \
  get_trimmed(b, apply ? (void *)d->name : NULL, sizeof(type) * (size_t)(n1) * (size_t)(n2), #name);
  MJDATA_VECTOR
#undef X
  /* every arena array inside the used arena, for the counts the saved mjData gives it */
  int64_t off[MDV_N_ARENA];
#define MJ_D(n) (s->n)
#define MJ_M(n) (m->n)
#define X(type, name, nr, nc)                                                                                     \
  off[MDV_ARENA_##name] = mdv_get_i64(b);                                                                         \
  if (!b->bad && off[MDV_ARENA_##name] != -1) {                                                                   \
    int64_t o_ = off[MDV_ARENA_##name], count_ = (int64_t)(nr) * (int64_t)(nc);                                   \
    if (o_ < 0 || o_ % (int64_t)_Alignof(type) || count_ < 0 || (uint64_t)o_ > s->parena ||                       \
        (uint64_t)count_ > (s->parena - (uint64_t)o_) / sizeof(type))                                             \
      mdv_blob_fail(b,                                                                                            \
                    "an mjData whose arena array %s (offset %lld, %lld values) lies outside its used arena (%zu " \
                    "bytes)",                                                                                     \
                    #name, (long long)o_, (long long)count_, s->parena);                                          \
  }
  MJDATA_ARENA_POINTERS
#undef X
#undef MJ_D
#undef MJ_M
  if (mdv_get_u64(b) != (uint64_t)d->nbuffer && !b->bad) mdv_blob_fail(b, "an mjData buffer of another size");
  size_t buffer_at = b->at;
  mdv_get(b, NULL, (size_t)d->nbuffer);
  if (mdv_get_u64(b) != (uint64_t)s->parena && !b->bad) mdv_blob_fail(b, "an mjData arena of another size");
  size_t arena_at = b->at;
  mdv_get(b, NULL, s->parena);
  if (apply && !b->bad) {
#define X(type, name) \
  if (!kept_scalar(#name)) d->name = s->name;
    MJDATA_SCALAR
#undef X
#define X(type, name, nr, nc) \
  d->name = off[MDV_ARENA_##name] < 0 ? NULL : (type *)(void *)((char *)d->arena + off[MDV_ARENA_##name]);
    MJDATA_ARENA_POINTERS
#undef X
    memcpy(d->buffer, b->in + buffer_at, (size_t)d->nbuffer);
    if (s->parena) memcpy(d->arena, b->in + arena_at, s->parena);
  }
}

/*---------------------------------- A model copy an env changes ---------------------------------*/

typedef struct model_array_ { /* one array of an mjModel */
  void *ptr;
  size_t size;
  int values; /* floating point (mjtNum, float): values a task may change; not ids, addresses, flags (bool) */
} model_array;

enum { /* the arrays of an mjModel, in MJMODEL_POINTERS order */
#define X(type, name, nr, nc) MDV_MODEL_##name,
       MJMODEL_POINTERS
#undef X
         MDV_N_MODEL_ARRAYS
};

#define MJ_M(n) n

/* Fill out with m's arrays in MJMODEL_POINTERS order. */
static void model_arrays(const mjModel *m, model_array out[MDV_N_MODEL_ARRAYS]) {
  MJMODEL_POINTERS_PREAMBLE(m)
#define X(type, name, nr, nc)                                                                           \
  out[MDV_MODEL_##name] = (model_array){(void *)m->name, sizeof(type) * (size_t)(m->nr) * (size_t)(nc), \
                                        (type)0.5 != (type)0 && (type)2 != (type)1};
  MJMODEL_POINTERS
#undef X
}

#undef MJ_M

void mdv_model_diff_save(const mjModel *m, const mjModel *proto, mdv_blob *b) {
  enum { n = MDV_N_MODEL_ARRAYS };
  model_array a[n], p[n];
  model_arrays(m, a);
  model_arrays(proto, p);
  mdv_put(b, &m->opt, sizeof m->opt);
  uint64_t changed = 0;
  for (int j = 0; j < n; j++)
    if (a[j].ptr != p[j].ptr && a[j].size && memcmp(a[j].ptr, p[j].ptr, a[j].size)) changed++;
  mdv_put_u64(b, changed);
  for (int j = 0; j < n; j++) {
    if (a[j].ptr == p[j].ptr || !a[j].size || !memcmp(a[j].ptr, p[j].ptr, a[j].size)) continue;
    mdv_put_u64(b, (uint64_t)j);
    mdv_put_u64(b, a[j].size);
    mdv_put(b, a[j].ptr, a[j].size);
  }
}

/* Copy proto's values into m's arrays next .. end - 1 (those m does not share). */
static void from_proto(const model_array *a, const model_array *p, int next, int end) {
  for (int j = next; j < end; j++)
    if (a[j].ptr != p[j].ptr && a[j].size) memcpy(a[j].ptr, p[j].ptr, a[j].size);
}

void mdv_model_diff_load(mjModel *m, const mjModel *proto, mdv_blob *b, int apply) {
  enum { n = MDV_N_MODEL_ARRAYS };
  model_array a[n], p[n];
  model_arrays(m, a);
  model_arrays(proto, p);
  size_t opt_at = b->at;
  mdv_get(b, NULL, sizeof m->opt);
  int64_t changed = mdv_get_range(b, 0, n, "the number of changed model arrays");
  int next = 0; /* arrays before `next` are done */
  for (int64_t c = 0; c < changed && !b->bad; c++) {
    int j = (int)mdv_get_range(b, next, n - 1, "a changed model array's index (ascending)");
    uint64_t size = mdv_get_u64(b);
    if (b->bad) break;
    if (size != a[j].size) {
      mdv_blob_fail(b, "model array %d holds %zu bytes, the blob %llu", j, a[j].size, (unsigned long long)size);
      break;
    }
    if (a[j].ptr == p[j].ptr) {
      mdv_blob_fail(b, "model array %d is shared with the task's model and never changes", j);
      break;
    }
    if (!a[j].values) { /* no task changes an id, an address or a flag: only a forged blob would */
      mdv_blob_fail(b, "model array %d holds ids or flags, which no task changes", j);
      break;
    }
    size_t at = b->at;
    if (mdv_get(b, NULL, (size_t)size)) break;
    if (apply) {
      from_proto(a, p, next, j); /* unchanged in the snapshot: the task model's values */
      memcpy(a[j].ptr, b->in + at, (size_t)size);
    }
    next = j + 1;
  }
  if (apply && !b->bad) {
    from_proto(a, p, next, n);
    memcpy(&m->opt, b->in + opt_at, sizeof m->opt);
  }
}
