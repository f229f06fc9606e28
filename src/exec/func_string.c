/*
 * func_string.c — string scalar functions.
 */
#include "exec/functions.h"

/* string → string, by case mapping. */
static floe_status type_str_str(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                int32_t n, floe_type **out) {
    (void)args;
    if (!fn_is_string(t[0])) return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_STRING);
    return NULL;
}

static floe_status eval_case(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                             floe_type *rt, floe_array **out) {
    fn_strwriter w;
    floe_buffer *valid;
    (void)n;
    FLOE_TRY(fn_validity(a, 1, rows, &valid));
    FLOE_TRY(fn_sw_init(&w, rows, valid));
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_sw_valid(&w, i)) {
            floe_strview s = fn_get_str(a[0], i);
            st = fn_utf8_case(s.data, s.len, def->tag, &w.data);
        }
        if (!st) st = fn_sw_end_row(&w);
    }
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

const floe_func_def floe_string_funcs[] = {
    {"lower", 1, 1, "lower(string)", type_str_str, eval_case, 0},
    {"upper", 1, 1, "upper(string)", type_str_str, eval_case, 1},
    {0},
};
