/* The C tests' one assertion macro: count, print the failing line, never stop early. */
#ifndef MDV_CHECK_H
#define MDV_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (cond) {                                                                     \
      check_passed++;                                                               \
    } else {                                                                        \
      check_failed++;                                                               \
      if (check_failed <= 20) fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                               \
  } while (0)

/* Print the summary line and return the exit status. */
static inline int check_summary(const char *suite) {
  printf("%s: %d passed, %d failed\n", suite, check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif /* MDV_CHECK_H */
