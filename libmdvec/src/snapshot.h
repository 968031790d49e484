/* snapshot.h: the pieces of mdvec_snapshot / mdvec_restore (internal, not part of the ABI): a bounded cursor
 * that writes or reads a blob, the blob's checksum, and the exact copy of an mjData or a generator into and
 * out of a blob. api.c lays the blob out (docs/state.md); a task writes its own state with these calls
 * (mdv_task.save / load).
 *
 * A blob is plain bytes in the machine's byte order (a snapshot is restored on the machine kind that made it:
 * the header names the library and MuJoCo versions, which restore checks). Reading never trusts a size or an
 * index it finds: each read is bounded by the blob, and each value the env will use as a size or an index is
 * checked before anything is written (load with apply 0), so a refused blob leaves the env as it was.
 */
#ifndef MDV_SNAPSHOT_H
#define MDV_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include <mujoco/mujoco.h>

#include "mt19937.h"
#include "pcg64.h"

/*---------------------------------- The cursor ----------------------------------------------------*/

typedef struct mdv_blob_ { /* one pass over a blob: writing (or counting), or reading */
  unsigned char *out;      /* writing: the blob; NULL counts the bytes only */
  const unsigned char *in; /* reading: the blob */
  size_t size;             /* reading: the bytes in `in` */
  size_t at;               /* bytes written (counted) or read so far */
  int bad;                 /* nonzero once a read or a check failed, or writing ran out of memory */
  char msg[256];           /* why, for mdvec_errmsg */
} mdv_blob;

/* Write n bytes (when b->out is not NULL) and count them. */
void mdv_put(mdv_blob *b, const void *src, size_t n);
void mdv_put_u64(mdv_blob *b, uint64_t v);
void mdv_put_i64(mdv_blob *b, int64_t v);
void mdv_put_f64(mdv_blob *b, double v);

/* Read n bytes into dst (NULL: skip them); return 0, or -1 (and fail b) past the end or once b is bad. */
int mdv_get(mdv_blob *b, void *dst, size_t n);

/* Return the next value (0 once b is bad). */
uint64_t mdv_get_u64(mdv_blob *b);
int64_t mdv_get_i64(mdv_blob *b);
double mdv_get_f64(mdv_blob *b);

/* Fail b with a message (the first failure's is kept); return -1. */
int mdv_blob_fail(mdv_blob *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read a u64 and check lo <= v <= hi (fail b naming `what` otherwise); return it (lo once b is bad). */
int64_t mdv_get_range(mdv_blob *b, int64_t lo, int64_t hi, const char *what);

/*---------------------------------- Checksum ------------------------------------------------------*/

/* Continue a 64-bit checksum h (start: MDV_HASH_SEED) over n bytes: FNV-1a over 8-byte words (a
 * multiplication by an odd constant per word, so any change of one word changes the sum), then a final mix
 * (mdv_hash_end). For detecting a truncated or damaged blob, not an adversary. */
#define MDV_HASH_SEED 0xcbf29ce484222325ull
uint64_t mdv_hash(uint64_t h, const void *data, size_t n);
uint64_t mdv_hash_end(uint64_t h);

/*---------------------------------- Generators ----------------------------------------------------*/

/* A PCG64 generator (numpy's state, its buffered 32-bit half included). */
void mdv_pcg64_save(const mdv_pcg64 *g, mdv_blob *b);
void mdv_pcg64_load(mdv_pcg64 *g, mdv_blob *b, int apply);

/* A RandomState (MT19937 key, position, cached Gaussian). */
void mdv_mt19937_save(const mdv_mt19937 *g, mdv_blob *b);
void mdv_mt19937_load(mdv_mt19937 *g, mdv_blob *b, int apply);

/*---------------------------------- mjData --------------------------------------------------------*/

/* Return nonzero when d can be saved (no plugin instances: their data are pointers of this process). */
int mdv_data_savable(const mjData *d);

/* Write everything of d that a later computation can read: its scalar and vector fields (memory statistics,
 * solver statistics, warnings, timers, sizes of the contacts and constraints, time, energy), its buffer
 * (state, controls, every derived array), the used part of its arena (contacts, constraint rows) and where
 * each arena array starts. Not the stack (empty between calls) nor the thread pool. */
void mdv_data_save(const mjModel *m, const mjData *d, mdv_blob *b);

/* Read what mdv_data_save wrote, for d made for m (or a model of the same sizes): apply 0 checks it against
 * d (sizes, the arena's extent, every arena array inside the used arena for the counts it names) without
 * writing; apply 1 writes it into d (after a check passed): then d equals, byte for byte in every array
 * MuJoCo reads, the mjData that was saved. */
void mdv_data_load(const mjModel *m, mjData *d, mdv_blob *b, int apply);

/*---------------------------------- A model copy an env changes ---------------------------------*/

/* Write how m, an env's copy of proto (the same sizes), differs from it: m's mjOption, then each array whose
 * bytes differ (its index in MJMODEL_POINTERS order and its bytes). Arrays m shares with proto (the same
 * pointer) never differ. For a task whose envs change their own model copy (domain randomisation, a target
 * moved at reset, dm_control's disable flags). */
void mdv_model_diff_save(const mjModel *m, const mjModel *proto, mdv_blob *b);

/* Read what mdv_model_diff_save wrote: apply 0 checks it (indices in order and in range, each array's size, only
 * floating-point arrays: a task changes values, never ids, addresses or flags);
 * apply 1 makes m's option and every array not shared with proto equal to the saved model's (the listed
 * arrays from the blob, the others from proto). */
void mdv_model_diff_load(mjModel *m, const mjModel *proto, mdv_blob *b, int apply);

#endif /* MDV_SNAPSHOT_H */
