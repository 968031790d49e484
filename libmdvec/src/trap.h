/* Trapping MuJoCo errors raised on the calling thread, so an env's error never ends the process.
 *
 * MuJoCo sends errors (mju_error) to a log handler, whose default prints and exits. MuJoCo also has a
 * per-thread handler that takes precedence over the process-wide one and affects only its thread
 * (its own loaders and mujoco.batch use it); mdvec installs it around each env's work and longjmps
 * back on an error, the pattern MuJoCo's own tests use. The process-wide handler, which other users
 * of libmujoco in the process own (the mujoco Python bindings), is never touched.
 *
 * Warnings (mju_warning, and mj_warning's first warning of a kind after each mjData reset) are counted
 * in the region and not passed on: MuJoCo 4.0's default handler prints them and appends them to
 * MUJOCO_LOG.TXT in the working directory (mju_writeLog), once per step for an env that goes unstable
 * every step (megabytes per episode). Info and debug messages (opt-in topics) pass on to the handler
 * that was in place. */
#ifndef MDV_TRAP_H
#define MDV_TRAP_H

#include <setjmp.h>
#include <stdint.h>

#include <mujoco/mujoco.h>

typedef struct mdv_trap_ { /* one trapped region on one thread */
  jmp_buf env;             /* where an error jumps back to */
  mjfLogHandler previous;  /* the thread's handler before the region */
  struct mdv_trap_ *outer; /* the enclosing region on this thread, or NULL */
  uint64_t warnings;       /* MuJoCo warnings raised in the region (counted, not passed on) */
  char message[512];       /* the error's text, when one was trapped */
} mdv_trap;

/* Start routing MuJoCo errors raised on this thread to trap; call setjmp(trap->env) right after:
 * it returns nonzero when an error was trapped. */
void mdv_trap_begin(mdv_trap *trap);

/* End the region and restore the thread's previous handler (also after an error). */
void mdv_trap_end(mdv_trap *trap);

/* Return nonzero when a message reports a failed allocation ("Could not allocate ...", a C++ bad_alloc
 * inside the loader, mdvec's own "out of memory"), which the caller reports as MDVEC_ERR_NOMEM; an mjData
 * arena too small for the model ("mj_stackAlloc: out of memory ...") is not one. */
int mdv_trap_is_nomem(const char *message);

#endif /* MDV_TRAP_H */
