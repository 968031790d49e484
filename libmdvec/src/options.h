/* Task options: text -> typed values with bounds; errors name the option, the value and the bounds. */
#ifndef MDV_OPTIONS_H
#define MDV_OPTIONS_H

#include <stddef.h>

#include "mdvec.h"
#include "task.h"

/* Resolve task t's options into values (t->n_options entries, zeroed by the caller): each declared
 * default, then the v1 config fields when cfg is not NULL and t has v1_options, then the named
 * options (each name at most once), given[j] of kind kinds[j] (MDVEC_VALUE_*; kinds NULL: all
 * MDVEC_VALUE_TEXT), kept in the value's kind for t's index_options (an integer kind must be decimal
 * text); then check every value's type and bounds. Strings are copied (free them with
 * mdv_options_free). Return MDVEC_OK, MDVEC_ERR_CONFIG with a message naming the option (unknown
 * names list the task's options), or MDVEC_ERR_NOMEM. */
int mdv_options_resolve(const mdv_task *t, const mdvec_config_t *cfg, const mdvec_option_t *given, const int *kinds,
                        int n_given, mdv_value *values, char *err, size_t err_size);

/* Free the strings mdv_options_resolve copied; safe on zeroed values. */
void mdv_options_free(const mdv_task *t, mdv_value *values);

#endif /* MDV_OPTIONS_H */
