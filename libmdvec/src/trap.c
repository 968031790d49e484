/* Trapping MuJoCo errors raised on the calling thread (see trap.h). */
#include "trap.h"

#include <stdio.h>
#include <string.h>

/* MuJoCo's per-thread log handler: exported by libmujoco, declared in no public header (MuJoCo's
 * own tests declare it the same way). Return the previous handler of the calling thread. */
MJAPI mjfLogHandler _mjPRIVATE_setTlsLogHandler(mjfLogHandler handler);

/* Return the process-wide handler, without changing it. */
MJAPI mjfLogHandler _mjPRIVATE_getGlobalLogHandler(void);

/* The innermost trapped region of this thread: set only between mdv_trap_begin and mdv_trap_end. */
static _Thread_local mdv_trap *tl_trap;

/* Jump back to the region on an error; count a warning; pass anything else on to the handler that was
 * in place. */
static void handle(const mjLogMessage *msg) {
  mdv_trap *trap = tl_trap;
  if (trap && msg->level == mjLOG_ERROR) {
    snprintf(trap->message, sizeof trap->message, "%.511s", msg->subject);
    longjmp(trap->env, 1);
  }
  if (trap && msg->level == mjLOG_WARNING) {
    trap->warnings++;
    return;
  }
  mjfLogHandler next = trap && trap->previous ? trap->previous : _mjPRIVATE_getGlobalLogHandler();
  if (next) next(msg);
}

void mdv_trap_begin(mdv_trap *trap) {
  trap->message[0] = 0;
  trap->warnings = 0;
  trap->outer = tl_trap;
  mjfLogHandler replaced = _mjPRIVATE_setTlsLogHandler(handle);
  trap->previous = trap->outer ? trap->outer->previous : replaced; /* never our own handler */
  tl_trap = trap;
}

void mdv_trap_end(mdv_trap *trap) {
  tl_trap = trap->outer;
  _mjPRIVATE_setTlsLogHandler(trap->outer ? handle : trap->previous);
}

int mdv_trap_is_nomem(const char *message) {
  if (!message) return 0;
  if (strstr(message, "allocate") || strstr(message, "bad_alloc")) return 1; /* malloc failed */
  /* "out of memory" alone: ours (a probe, a scratch) yes; MuJoCo's mjData arena overflowing
   * ("mj_stackAlloc: out of memory ... increase <size memory=...>") is the model's size, not the machine's */
  return strstr(message, "out of memory") && !strstr(message, "mj_stackAlloc") && !strstr(message, "arena") &&
         !strstr(message, "memory=");
}
