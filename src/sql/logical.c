/*
 * logical.c — logical plan nodes (logical.h): construction, freeing and
 * the indented text form used by tests and debugging.
 */
#include "sql/logical.h"

#include <string.h>

#include "floe/memory.h"

static const char *const k_names[FLOE_LKIND_COUNT_] = {
    "IcebergScan", "ParquetScan", "GenerateSeries", "Physical", "Filter", "Project",
    "Aggregate",   "Join",        "Sort",           "Limit",    "Union",  "Distinct",
    "Window",
    "Expand",
    "Replicate", "DistinctOn",
    "SeriesApply", "RecursiveUnion", "CteScan", "MaterializeCte", "Unnest",
};

const char *floe_lkind_name(floe_lkind k) {
    return (unsigned)k < FLOE_LKIND_COUNT_ ? k_names[k] : "?";
}

floe_status floe_lplan_new(floe_lkind kind, floe_schema *schema, struct floe_lplan **inputs, int32_t n_inputs,
                           floe_lplan **out) {
    *out = NULL;
    floe_lplan *p = floe_calloc(1, sizeof(*p));
    if (!p || (n_inputs > 0 && !(p->inputs = floe_calloc((size_t)n_inputs, sizeof(floe_lplan *))))) {
        floe_free(p);
        for (int32_t i = 0; i < n_inputs; i++) floe_lplan_free(inputs[i]);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "logical plan: out of memory");
    }
    p->kind = kind;
    p->schema = floe_type_retain(schema);
    p->n_inputs = n_inputs;
    for (int32_t i = 0; i < n_inputs; i++) p->inputs[i] = inputs[i];
    p->fetch = -1;
    *out = p;
    return NULL;
}

void floe_lplan_free(floe_lplan *p) {
    if (!p) return;
    for (int32_t i = 0; i < p->n_inputs; i++) floe_lplan_free(p->inputs[i]);
    floe_free(p->inputs);
    floe_type_release(p->schema);
    floe_expr_release(p->predicate);
    for (int32_t i = 0; i < p->n_exprs; i++) {
        floe_expr_release(p->exprs[i]);
        if (p->names) floe_free(p->names[i]);
    }
    floe_free(p->exprs);
    floe_free(p->names);
    for (int32_t i = 0; i < p->n_aggs; i++) floe_agg_call_clear(&p->aggs[i]);
    floe_free(p->aggs);
    for (int32_t i = 0; i < p->n_keys; i++) {
        floe_expr_release(p->left_keys[i]);
        floe_expr_release(p->right_keys[i]);
    }
    floe_free(p->left_keys);
    floe_free(p->right_keys);
    for (int32_t i = 0; i < p->n_sort_keys; i++) floe_expr_release(p->sort_keys[i].expr);
    floe_free(p->sort_keys);
    if (p->table) floe_ice_table_free(p->table);
    floe_free(p->table_name);
    floe_free((char *)p->snapshot.ref);
    floe_free(p->field_ids);
    if (p->pushed) floe_ice_expr_free(p->pushed);
    for (int32_t i = 0; p->only_files && i < p->n_only_files; i++) floe_free(p->only_files[i]);
    floe_free(p->only_files);
    floe_plan_release(p->physical);
    for (int32_t i = 0; p->wpart && i < p->n_wpart; i++) floe_expr_release(p->wpart[i]);
    floe_free(p->wpart);
    for (int32_t i = 0; p->worder && i < p->n_worder; i++) floe_expr_release(p->worder[i].expr);
    floe_free(p->worder);
    for (int32_t i = 0; p->wcalls && i < p->n_wcalls; i++) floe_window_call_clear(&p->wcalls[i]);
    floe_free(p->wcalls);
    floe_free(p->gset_masks);
    floe_free(p->gset_ids);
    floe_free(p);
}

static floe_status put_expr(floe_buf *out, const floe_expr *e) {
    if (!e) return floe_buf_append_str(out, "NULL");
    return floe_expr_to_string(e, out);
}

static floe_status put_line(const floe_lplan *p, int depth, floe_buf *out) {
    for (int i = 0; i < depth; i++) FLOE_TRY(floe_buf_append_str(out, "  "));
    FLOE_TRY(floe_buf_append_str(out, floe_lkind_name(p->kind)));
    switch (p->kind) {
    case FLOE_L_ICEBERG_SCAN:
        FLOE_TRY(floe_buf_printf(out, ": %s", p->table_name ? p->table_name : "?"));
        if (p->snapshot.kind == FLOE_ICE_SELECT_ID)
            FLOE_TRY(floe_buf_printf(out, " snapshot=%lld", (long long)p->snapshot.snapshot_id));
        else if (p->snapshot.kind == FLOE_ICE_SELECT_REF)
            FLOE_TRY(floe_buf_printf(out, " ref=%s", p->snapshot.ref ? p->snapshot.ref : "?"));
        else if (p->snapshot.kind == FLOE_ICE_SELECT_AS_OF)
            FLOE_TRY(floe_buf_printf(out, " as_of_ms=%lld", (long long)p->snapshot.timestamp_ms));
        FLOE_TRY(floe_buf_append_str(out, " fields=["));
        for (int32_t i = 0; i < p->n_field_ids; i++)
            FLOE_TRY(floe_buf_printf(out, "%s%d", i ? ", " : "", (int)p->field_ids[i]));
        FLOE_TRY(floe_buf_append_str(out, "]"));
        break;
    case FLOE_L_GENERATE_SERIES:
        FLOE_TRY(floe_buf_printf(out, ": %lld..%lld step %lld", (long long)p->start, (long long)p->stop,
                                 (long long)p->step));
        break;
    case FLOE_L_PARQUET_SCAN:
    case FLOE_L_PHYSICAL:
        if (p->physical) FLOE_TRY(floe_buf_printf(out, ": %s", floe_plan_type_name(p->physical)));
        break;
    case FLOE_L_FILTER:
        FLOE_TRY(floe_buf_append_str(out, ": "));
        FLOE_TRY(put_expr(out, p->predicate));
        break;
    case FLOE_L_PROJECT:
    case FLOE_L_AGGREGATE:
        FLOE_TRY(floe_buf_append_str(out, p->kind == FLOE_L_AGGREGATE ? ": keys=[" : ": "));
        for (int32_t i = 0; i < p->n_exprs; i++) {
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(put_expr(out, p->exprs[i]));
            if (p->names && p->names[i]) FLOE_TRY(floe_buf_printf(out, " AS %s", p->names[i]));
        }
        if (p->kind == FLOE_L_AGGREGATE) {
            FLOE_TRY(floe_buf_append_str(out, "] aggs=["));
            for (int32_t i = 0; i < p->n_aggs; i++) {
                const floe_agg_call *a = &p->aggs[i];
                FLOE_TRY(floe_buf_printf(out, "%s%s(%s", i ? ", " : "", floe_agg_call_func_name(a),
                                         a->distinct ? "DISTINCT " : ""));
                if (a->arg) FLOE_TRY(put_expr(out, a->arg));
                else if (a->fn == FLOE_AGG_COUNT_STAR) FLOE_TRY(floe_buf_append_str(out, "*"));
                if (a->arg2) FLOE_TRY(floe_buf_append_str(out, ", "));
                if (a->arg2) FLOE_TRY(put_expr(out, a->arg2));
                for (int32_t k = 0; k < a->n_order; k++) {
                    FLOE_TRY(floe_buf_append_str(out, k ? ", " : " ORDER BY "));
                    FLOE_TRY(put_expr(out, a->order[k].expr));
                    if (a->order[k].descending) FLOE_TRY(floe_buf_append_str(out, " DESC"));
                }
                FLOE_TRY(floe_buf_append_str(out, ")"));
                if (a->filter) FLOE_TRY(floe_buf_append_str(out, " FILTER ("));
                if (a->filter) FLOE_TRY(put_expr(out, a->filter));
                if (a->filter) FLOE_TRY(floe_buf_append_str(out, ")"));
                FLOE_TRY(floe_buf_printf(out, " AS %s", a->name ? a->name : "?"));
            }
            FLOE_TRY(floe_buf_append_str(out, "]"));
        }
        break;
    case FLOE_L_JOIN:
        FLOE_TRY(floe_buf_printf(out, ": %s", floe_join_type_name(p->join_type)));
        if (p->null_aware) FLOE_TRY(floe_buf_append_str(out, " null_aware"));
        if (p->n_keys) {
            FLOE_TRY(floe_buf_append_str(out, " keys=["));
            for (int32_t i = 0; i < p->n_keys; i++) {
                if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
                FLOE_TRY(put_expr(out, p->left_keys[i]));
                FLOE_TRY(floe_buf_append_str(out, " = "));
                FLOE_TRY(put_expr(out, p->right_keys[i]));
            }
            FLOE_TRY(floe_buf_append_str(out, "]"));
        }
        if (p->predicate) {
            FLOE_TRY(floe_buf_append_str(out, " predicate="));
            FLOE_TRY(put_expr(out, p->predicate));
        }
        break;
    case FLOE_L_SORT:
        FLOE_TRY(floe_buf_append_str(out, ": "));
        for (int32_t i = 0; i < p->n_sort_keys; i++) {
            const floe_sort_key *k = &p->sort_keys[i];
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(put_expr(out, k->expr));
            FLOE_TRY(floe_buf_printf(out, " %s NULLS %s", k->descending ? "DESC" : "ASC",
                                     k->nulls_first ? "FIRST" : "LAST"));
        }
        if (p->fetch >= 0) FLOE_TRY(floe_buf_printf(out, " fetch=%lld", (long long)p->fetch));
        break;
    case FLOE_L_LIMIT:
        FLOE_TRY(floe_buf_printf(out, ": offset=%lld fetch=%lld", (long long)p->offset, (long long)p->fetch));
        break;
    case FLOE_L_WINDOW:
        FLOE_TRY(floe_buf_append_str(out, ": partition=["));
        for (int32_t i = 0; i < p->n_wpart; i++) {
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(put_expr(out, p->wpart[i]));
        }
        FLOE_TRY(floe_buf_append_str(out, "] order=["));
        for (int32_t i = 0; i < p->n_worder; i++) {
            const floe_sort_key *k = &p->worder[i];
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(put_expr(out, k->expr));
            FLOE_TRY(floe_buf_printf(out, " %s NULLS %s", k->descending ? "DESC" : "ASC",
                                     k->nulls_first ? "FIRST" : "LAST"));
        }
        FLOE_TRY(floe_buf_append_str(out, "] calls=["));
        for (int32_t i = 0; i < p->n_wcalls; i++) {
            const floe_window_call *c = &p->wcalls[i];
            FLOE_TRY(floe_buf_printf(out, "%s%s(", i ? ", " : "",
                                     c->fn != FLOE_WIN_AGG       ? floe_win_fn_name(c->fn)
                                     : c->agg == FLOE_AGG_NAMED ? c->func
                                                                : floe_agg_fn_name(c->agg)));
            for (int32_t k = 0; k < c->n_args; k++) {
                if (k) FLOE_TRY(floe_buf_append_str(out, ", "));
                FLOE_TRY(put_expr(out, c->args[k]));
            }
            FLOE_TRY(floe_buf_printf(out, ") AS %s", c->name ? c->name : "?"));
        }
        FLOE_TRY(floe_buf_append_str(out, "]"));
        break;
    case FLOE_L_EXPAND:
        FLOE_TRY(floe_buf_printf(out, ": %d sets of %d keys [", (int)p->n_gsets, (int)p->n_gset_keys));
        for (int32_t i = 0; i < p->n_exprs; i++) {
            if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(put_expr(out, p->exprs[i]));
        }
        FLOE_TRY(floe_buf_append_str(out, "]"));
        break;
    default:
        break;
    }
    /* The output columns. */
    FLOE_TRY(floe_buf_append_str(out, " -> ("));
    for (int32_t i = 0; p->schema && i < floe_schema_num_fields(p->schema); i++) {
        const floe_field *f = floe_schema_field(p->schema, i);
        FLOE_TRY(floe_buf_printf(out, "%s%s ", i ? ", " : "", f->name));
        FLOE_TRY(floe_type_to_string(f->type, out));
    }
    return floe_buf_append_str(out, ")\n");
}

static floe_status to_string(const floe_lplan *p, int depth, floe_buf *out) {
    FLOE_TRY(put_line(p, depth, out));
    for (int32_t i = 0; i < p->n_inputs; i++) FLOE_TRY(to_string(p->inputs[i], depth + 1, out));
    return NULL;
}

floe_status floe_lplan_to_string(const floe_lplan *p, floe_buf *out) {
    return to_string(p, 0, out);
}
