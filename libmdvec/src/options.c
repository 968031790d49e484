/* Task options: text -> typed values with bounds (see options.h). */
#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(int type) {
  switch (type) {
    case MDVEC_OPT_INT:
      return "an integer";
    case MDVEC_OPT_DOUBLE:
      return "a number";
    case MDVEC_OPT_BOOL:
      return "true or false";
    case MDVEC_OPT_STRING:
      return "a string";
    case MDVEC_OPT_RANGE:
      return "two numbers \"lo,hi\"";
    case MDVEC_OPT_IRANGE:
      return "two integers \"lo,hi\"";
    default:
      return "one of its choices";
  }
}

/* Parse a whole decimal integer; return 0 or -1. */
static int parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno == ERANGE) return -1;
  *out = v;
  return 0;
}

/* Parse a whole number (strtod syntax, "inf", "-inf"; not NaN); return 0 or -1. */
static int parse_double(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || isnan(v)) return -1;
  *out = v;
  return 0;
}

/* Split "lo,hi" at its one comma into two NUL-terminated parts in buf; return 0 or -1. */
static int split_pair(const char *s, char *buf, size_t size, const char **lo, const char **hi) {
  if (strlen(s) >= size) return -1;
  strcpy(buf, s);
  char *comma = strchr(buf, ',');
  if (!comma || strchr(comma + 1, ',')) return -1;
  *comma = 0;
  *lo = buf;
  *hi = comma + 1;
  return 0;
}

/* Return the index of word in the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *word) {
  size_t n = strlen(word);
  int k = 0;
  for (const char *p = choices; p; k++) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && !strncmp(p, word, n)) return k;
    p = bar ? bar + 1 : NULL;
  }
  return -1;
}

/* Parse text into v by the declaration's type (strings stay borrowed: copied once at the end of
 * mdv_options_resolve); return MDVEC_OK or MDVEC_ERR_CONFIG with a message. */
static int parse(const mdv_option_decl *o, const char *text, mdv_value *v, char *err, size_t n) {
  char buf[256];
  const char *a, *b;
  int ok = 1;
  if (!text) {
    if (o->type == MDVEC_OPT_STRING) {
      v->s = NULL;
      return MDVEC_OK;
    }
    ok = 0;
  } else {
    switch (o->type) {
      case MDVEC_OPT_INT:
        ok = !parse_int(text, &v->i[0]);
        break;
      case MDVEC_OPT_DOUBLE:
        ok = !parse_double(text, &v->d[0]);
        break;
      case MDVEC_OPT_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "True") || !strcmp(text, "1"))
          v->i[0] = 1;
        else if (!strcmp(text, "false") || !strcmp(text, "False") || !strcmp(text, "0"))
          v->i[0] = 0;
        else
          ok = 0;
        break;
      case MDVEC_OPT_RANGE:
        ok = !split_pair(text, buf, sizeof buf, &a, &b) && !parse_double(a, &v->d[0]) && !parse_double(b, &v->d[1]);
        break;
      case MDVEC_OPT_IRANGE:
        ok = !split_pair(text, buf, sizeof buf, &a, &b) && !parse_int(a, &v->i[0]) && !parse_int(b, &v->i[1]);
        break;
      case MDVEC_OPT_CHOICE:
        v->i[0] = choice_index(o->choices, text);
        ok = v->i[0] >= 0;
        v->s = text;
        break;
      default: /* MDVEC_OPT_STRING */
        v->s = text;
        break;
    }
  }
  if (ok) return MDVEC_OK;
  if (o->type == MDVEC_OPT_CHOICE)
    snprintf(err, n, "%s: '%s' is not one of %s", o->name, text ? text : "(null)", o->choices);
  else
    snprintf(err, n, "%s: '%s' is not %s", o->name, text ? text : "(null)", type_name(o->type));
  return MDVEC_ERR_CONFIG;
}

/* Check v against the declaration's bounds; return 0 or -1 with a message naming option, value, bounds. */
static int check(const mdv_option_decl *o, const mdv_value *v, char *err, size_t n) {
  switch (o->type) {
    case MDVEC_OPT_INT:
    case MDVEC_OPT_IRANGE: {
      int pair = o->type == MDVEC_OPT_IRANGE;
      for (int k = 0; k <= pair; k++) {
        if ((double)v->i[k] < o->lo || (double)v->i[k] > o->hi) {
          if (pair)
            snprintf(err, n, "%s: (%" PRId64 ", %" PRId64 ") is out of range: both ends must lie in [%.17g, %.17g]",
                     o->name, v->i[0], v->i[1], o->lo, o->hi);
          else
            snprintf(err, n, "%s: %" PRId64 " is out of range [%.17g, %.17g]", o->name, v->i[0], o->lo, o->hi);
          return -1;
        }
      }
      if (pair && v->i[0] > v->i[1]) {
        snprintf(err, n, "%s: (%" PRId64 ", %" PRId64 ") needs lo <= hi", o->name, v->i[0], v->i[1]);
        return -1;
      }
      return 0;
    }
    case MDVEC_OPT_DOUBLE:
    case MDVEC_OPT_RANGE: {
      int pair = o->type == MDVEC_OPT_RANGE;
      for (int k = 0; k <= pair; k++) {
        if (!(v->d[k] >= o->lo && v->d[k] <= o->hi)) { /* NaN fails too */
          if (pair)
            snprintf(err, n, "%s: (%.17g, %.17g) is out of range: both ends must lie in [%.17g, %.17g]", o->name,
                     v->d[0], v->d[1], o->lo, o->hi);
          else
            snprintf(err, n, "%s: %.17g is out of range [%.17g, %.17g]", o->name, v->d[0], o->lo, o->hi);
          return -1;
        }
      }
      if (pair && v->d[0] > v->d[1]) {
        snprintf(err, n, "%s: (%.17g, %.17g) needs lo <= hi", o->name, v->d[0], v->d[1]);
        return -1;
      }
      return 0;
    }
    case MDVEC_OPT_BOOL:
      if (v->i[0] != 0 && v->i[0] != 1) {
        snprintf(err, n, "%s: %" PRId64 " is not 0 or 1", o->name, v->i[0]);
        return -1;
      }
      return 0;
    case MDVEC_OPT_CHOICE:
      if (!v->s || choice_index(o->choices, v->s) != v->i[0]) {
        snprintf(err, n, "%s: '%s' is not one of %s", o->name, v->s ? v->s : "(null)", o->choices);
        return -1;
      }
      return 0;
    default:
      return 0;
  }
}

/* Write "unknown option" naming the task's options into err. */
static void unknown(const mdv_task *t, const char *name, char *err, size_t n) {
  int len = snprintf(err, n, "unknown option '%s' for task '%s'; its options are:", name ? name : "(null)", t->name);
  for (int k = 0; k < t->n_options && len >= 0 && (size_t)len < n; k++) {
    len += snprintf(err + len, n - (size_t)len, "%s %s", k ? "," : "", t->options[k].name);
  }
}

static int resolve(const mdv_task *t, const mdvec_config_t *cfg, const mdvec_option_t *given, const int *kinds,
                   int n_given, mdv_value *values, char *err, size_t n);

int mdv_options_resolve(const mdv_task *t, const mdvec_config_t *cfg, const mdvec_option_t *given, const int *kinds,
                        int n_given, mdv_value *values, char *err, size_t n) {
  int code = resolve(t, cfg, given, kinds, n_given, values, err, n);
  for (int k = 0; k < t->n_options; k++) { /* borrowed until here: copy them, or forget them */
    const char *s = values[k].s;
    values[k].s = NULL;
    if (code == MDVEC_OK && s) {
      char *c = malloc(strlen(s) + 1);
      if (c)
        values[k].s = strcpy(c, s);
      else
        code = MDVEC_ERR_NOMEM;
    }
  }
  if (code == MDVEC_ERR_NOMEM) {
    snprintf(err, n, "out of memory");
    mdv_options_free(t, values);
  }
  return code;
}

/* Return nonzero when name is one of the ','-separated words of list (NULL: none). */
static int listed(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t word = comma ? (size_t)(comma - p) : strlen(p);
    if (word == len && !strncmp(p, name, len)) return 1;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

/* Record how an option of t was given (kind, MDVEC_VALUE_*) in v; return 0 or -1 with a message. */
static int take_kind(const mdv_task *t, const mdv_option_decl *o, int kind, mdv_value *v, char *err, size_t n) {
  if (kind != MDVEC_VALUE_TEXT && kind != MDVEC_VALUE_INT && kind != MDVEC_VALUE_STR) {
    snprintf(err, n, "%s: option_kinds gives %d, not MDVEC_VALUE_TEXT (0), MDVEC_VALUE_INT (1) or MDVEC_VALUE_STR (2)",
             o->name, kind);
    return -1;
  }
  if (!listed(t->index_options, o->name)) return 0; /* read by its type alone */
  int64_t index;
  if (kind == MDVEC_VALUE_INT && (!v->s || parse_int(v->s, &index))) {
    snprintf(err, n, "%s: '%s' is given as an integer (MDVEC_VALUE_INT) but is not a decimal integer", o->name,
             v->s ? v->s : "(null)");
    return -1;
  }
  v->kind = kind;
  return 0;
}

/* mdv_options_resolve with the strings borrowed. */
static int resolve(const mdv_task *t, const mdvec_config_t *cfg, const mdvec_option_t *given, const int *kinds,
                   int n_given, mdv_value *values, char *err, size_t n) {
  int code;
  for (int k = 0; k < t->n_options; k++) { /* a task bug: a table by designated index left a hole */
    if (!t->options[k].name) {
      snprintf(err, n,
               "task '%s': option %d of %d has no name (a hole in its option table: every index "
               "of the table's enum needs an entry)",
               t->name, k, t->n_options);
      return MDVEC_ERR_MODEL;
    }
  }
  for (int k = 0; k < t->n_options; k++) {
    if ((code = parse(&t->options[k], t->options[k].def, &values[k], err, n)) != MDVEC_OK) return code;
  }
  if (cfg && t->v1_options) {
    if (t->v1_options(cfg, values, err, n)) return MDVEC_ERR_CONFIG;
  }
  if (n_given < 0 || (n_given > 0 && !given)) {
    snprintf(err, n, "options: %d options at %p", n_given, (const void *)given);
    return MDVEC_ERR_CONFIG;
  }
  for (int j = 0; j < n_given; j++) {
    int k = 0;
    while (k < t->n_options && !(given[j].name && !strcmp(given[j].name, t->options[k].name))) k++;
    if (k == t->n_options) {
      unknown(t, given[j].name, err, n);
      return MDVEC_ERR_CONFIG;
    }
    if (values[k].given) {
      snprintf(err, n, "%s: given twice", t->options[k].name);
      return MDVEC_ERR_CONFIG;
    }
    if ((code = parse(&t->options[k], given[j].value, &values[k], err, n)) != MDVEC_OK) return code;
    if (take_kind(t, &t->options[k], kinds ? kinds[j] : MDVEC_VALUE_TEXT, &values[k], err, n)) return MDVEC_ERR_CONFIG;
    values[k].given = 1;
  }
  for (int k = 0; k < t->n_options; k++) {
    if (check(&t->options[k], &values[k], err, n)) return MDVEC_ERR_CONFIG;
  }
  return MDVEC_OK;
}

void mdv_options_free(const mdv_task *t, mdv_value *values) {
  if (!values) return;
  for (int k = 0; k < t->n_options; k++) {
    free((void *)values[k].s);
    values[k].s = NULL;
  }
}
