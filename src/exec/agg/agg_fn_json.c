/*
 * agg_fn_json.c — PostgreSQL's json aggregates: json_agg / jsonb_agg (an
 * array of the values, NULLs as null, in ORDER BY order) and
 * json_object_agg / jsonb_object_agg (an object of key / value pairs).
 * Holistic entries: the hash aggregate collects and orders a group's rows,
 * finalize_rows writes the text (json_text.h's value conversion); the
 * jsonb forms are normalized as jsonb prints (keys sorted, last of
 * duplicates kept).  An empty group gives NULL.
 */
#include "exec/agg/agg_func.h"
#include "exec/func/json_text.h"

static floe_status jagg_resolve(agg_info *ai) {
    for (int32_t k = 0; k < ai->n_args; k++)
        if (floe_type_is_nested(ai->arg_types[k]))
            return floe_error(FLOE_ERR_TYPE, "%s(%s) is not supported (nested values)", ai->fn->name,
                              floe_type_id_name(ai->arg_types[k]->id));
    ai->out_type = floe_type_primitive(FLOE_TYPE_STRING);
    return NULL;
}

static floe_status jagg_rows(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                             floe_builder *out) {
    if (n == 0) return floe_builder_append_null(out);
    bool obj = ai->n_args == 2, jsonb = ai->fn->name[4] == 'b';
    floe_buf t = FLOE_BUF_INIT, tmp = FLOE_BUF_INIT, norm = FLOE_BUF_INIT;
    floe_status st = floe_buf_append_str(&t, obj ? "{ " : "[");
    for (int64_t k = 0; k < n && !st; k++) {
        int64_t r = idx[k];
        if (k) st = floe_buf_append_str(&t, ", ");
        if (!st && obj) {
            const floe_array *key = cols[0];
            if (key->type->id == FLOE_TYPE_NULL || floe_array_is_null(key, r)) {
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: field name must not be null", ai->fn->name);
                break;
            }
            if (key->type->id == FLOE_TYPE_STRING) {
                floe_strview s = floe_array_get_str(key, r);
                st = jt_escape(s.data, s.len, &t);
            } else {
                floe_buf_clear(&tmp);
                st = floe_format_value(key, r, &tmp);
                if (!st) st = jt_escape((const char *)tmp.data, (int64_t)tmp.len, &t);
            }
            if (!st) st = floe_buf_append_str(&t, " : ");
        }
        if (!st) st = jt_value_json(cols[obj ? 1 : 0], r, &t, &tmp);
    }
    if (!st) st = floe_buf_append_str(&t, obj ? " }" : "]");
    if (!st && jsonb) {
        jt_span v = {0, (int64_t)t.len};
        st = jt_normalize((const char *)t.data, v, &norm);
        if (!st) st = floe_builder_append_binary(out, norm.data, (int64_t)norm.len);
    } else if (!st) {
        st = floe_builder_append_binary(out, t.data, (int64_t)t.len);
    }
    floe_buf_free(&t);
    floe_buf_free(&tmp);
    floe_buf_free(&norm);
    return st;
}

const agg_func floe_agg_json_funcs[] = {
    {"json_agg", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .flags = AGGF_HOLISTIC | AGGF_KEEPS_NULLS,
     .resolve = jagg_resolve, .finalize_rows = jagg_rows},
    {"jsonb_agg", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .flags = AGGF_HOLISTIC | AGGF_KEEPS_NULLS,
     .resolve = jagg_resolve, .finalize_rows = jagg_rows},
    {"json_object_agg", .fast = FLOE_AGG_NAMED, .min_args = 2, .max_args = 2,
     .flags = AGGF_HOLISTIC | AGGF_KEEPS_NULLS, .resolve = jagg_resolve, .finalize_rows = jagg_rows},
    {"jsonb_object_agg", .fast = FLOE_AGG_NAMED, .min_args = 2, .max_args = 2,
     .flags = AGGF_HOLISTIC | AGGF_KEEPS_NULLS, .resolve = jagg_resolve, .finalize_rows = jagg_rows},
    {.name = NULL},
};
