/* The C tests' assertions: count every check, print the failing ones with their values, never stop
 * early, and close with one "name: N passed, N failed" line. */
#ifndef MDV_CHECK_H
#define MDV_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long check_passed, check_failed;

/* Compare two 64-bit patterns; on failure print where, what and both values. */
#define CHECK_U64(what, got, want)                                                                                \
  do {                                                                                                            \
    uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);                                                    \
    if (got_ == want_) {                                                                                          \
      check_passed++;                                                                                             \
    } else if (++check_failed <= 30) {                                                                            \
      fprintf(stderr, "%s:%d: %s: got 0x%016" PRIx64 ", want 0x%016" PRIx64 "\n", __FILE__, __LINE__, what, got_, \
              want_);                                                                                             \
    }                                                                                                             \
  } while (0)

/* Check a condition, labelled. */
#define CHECK_THAT(what, cond) CHECK_U64(what, (cond) ? 1 : 0, 1)

/* Check a condition, labelled with its own text. */
#define CHECK(cond) CHECK_THAT(#cond, cond)

/* Format a label for the next check (valid until the next WHAT). */
static inline const char *WHAT(const char *fmt, ...) {
  static char label[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(label, sizeof label, fmt, ap);
  va_end(ap);
  return label;
}

/* Return the bit pattern of a double. */
static inline uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* Return the double with a bit pattern. */
static inline double dbl(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* Print the summary line and return the exit status. */
#ifdef MDVEC_MODELS_DIR
/* Write the built-in duck with <size memory="memory"/> (its mjData arena) into a temporary file; return
 * its path (written into path), or NULL. */
static inline const char *check_duck_with_memory(const char *memory, char *path, size_t size) {
  FILE *in = fopen(MDVEC_MODELS_DIR "/duck.xml", "rb");
  if (!in) return NULL;
  static char xml[1 << 16];
  size_t n = fread(xml, 1, sizeof xml - 1, in);
  fclose(in);
  xml[n] = 0;
  const char *tag = "<mujoco model=\"duck\">";
  char *at = strstr(xml, tag);
  if (!at) return NULL;
  snprintf(path, size, "/tmp/mdvec_test_%d_%s.xml", (int)getpid(), memory);
  FILE *out = fopen(path, "wb");
  if (!out) return NULL;
  at += strlen(tag);
  fwrite(xml, 1, (size_t)(at - xml), out);
  fprintf(out, "<size memory=\"%s\"/>", memory);
  fputs(at, out);
  fclose(out);
  return path;
}
#endif

static inline int check_summary(const char *suite) {
  printf("%s: %ld passed, %ld failed\n", suite, check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif /* MDV_CHECK_H */
