/*
 * bind_insert.c — the rows a table write receives (dml.h,
 * floe_sql_bind_write_input): the query's columns mapped onto the table's
 * columns, converted by assignment rules, and the partition values beside
 * them.
 *
 * Assignment follows PostgreSQL where it is safe: a value is converted
 * when nothing can be lost — int to bigint (and bigint to int, checked per
 * value: one out of range fails the statement), real to double, a decimal
 * to one with at least as many fraction digits and an integer to a decimal
 * (both checked per value for the integer digits), date to timestamp,
 * timestamp to timestamptz and
 * back (UTC), microseconds to nanoseconds, any number to double, anything
 * to text — and refused otherwise with the message PostgreSQL gives
 * ("column 'x' is of type int but the expression is of type string").
 * Constants (VALUES rows, literals in the select list) convert to any type
 * the cast accepts: '2024-01-01' into a date column, 7 into a smallint
 * one; a value that does not fit fails when the cast runs.
 *
 * Partition values are computed from the TABLE column with the spec
 * field's source id, after the conversion — never from a query position —
 * so a query that reorders, renames or computes columns still files each
 * row under the partition its own values belong to.
 */
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/dml.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "INSERT: out of memory"); }

/* The Iceberg name of a columnar type, for messages ("int", "string"). */
static const char *type_word(const floe_type *t, char *buf, size_t cap) {
    switch (t->id) {
    case FLOE_TYPE_NULL: return "unknown";
    case FLOE_TYPE_BOOL: return "boolean";
    case FLOE_TYPE_INT32: return "int";
    case FLOE_TYPE_INT64: return "long";
    case FLOE_TYPE_FLOAT32: return "float";
    case FLOE_TYPE_FLOAT64: return "double";
    case FLOE_TYPE_DECIMAL128:
        snprintf(buf, cap, "decimal(%d,%d)", (int)t->precision, (int)t->scale);
        return buf;
    case FLOE_TYPE_DATE32: return "date";
    case FLOE_TYPE_TIME64_US: return "time";
    case FLOE_TYPE_TIMESTAMP_US: return "timestamp";
    case FLOE_TYPE_TIMESTAMP_US_TZ: return "timestamptz";
    case FLOE_TYPE_TIMESTAMP_NS: return "timestamp_ns";
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return "timestamptz_ns";
    case FLOE_TYPE_STRING: return "string";
    case FLOE_TYPE_BINARY: return "binary";
    case FLOE_TYPE_FIXED_BINARY:
        snprintf(buf, cap, "fixed[%d]", (int)t->byte_width);
        return buf;
    case FLOE_TYPE_UUID: return "uuid";
    case FLOE_TYPE_STRUCT: case FLOE_TYPE_LIST: case FLOE_TYPE_MAP: {
        floe_buf b = FLOE_BUF_INIT; /* the whole type: struct<a: int32, ...> */
        floe_status st = floe_type_to_string(t, &b);
        snprintf(buf, cap, "%s", st ? floe_type_id_name(t->id) : floe_buf_cstr(&b));
        floe_status_free(st);
        floe_buf_free(&b);
        return buf;
    }
    default: return floe_type_id_name(t->id);
    }
}

static bool is_int(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_ts(floe_type_id id) {
    return id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ || id == FLOE_TYPE_TIMESTAMP_NS ||
           id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}
static bool is_ns(floe_type_id id) { return id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ; }
static bool is_primitive(floe_type_id id) {
    return id != FLOE_TYPE_STRUCT && id != FLOE_TYPE_LIST && id != FLOE_TYPE_MAP;
}

/* May a non-constant value of type `from` be assigned to a column of type
 * `to` (nothing lost)? */
static bool assignable(const floe_type *from, const floe_type *to) {
    floe_type_id f = from->id, t = to->id;
    if (f == FLOE_TYPE_NULL) return true;
    /* lists, maps, structs: the same shape, each child assignable */
    /* a text field of a constructor is an untyped NULL (ROW(1, NULL)):
     * only NULL text casts to a nested type, anything else fails there */
    if ((t == FLOE_TYPE_LIST || t == FLOE_TYPE_MAP || t == FLOE_TYPE_STRUCT) && f == FLOE_TYPE_STRING) return true;
    if ((t == FLOE_TYPE_LIST || t == FLOE_TYPE_MAP || t == FLOE_TYPE_STRUCT) && f == t) {
        if (from->n_children != to->n_children) return false;
        for (int32_t i = 0; i < to->n_children; i++)
            if (!assignable(from->children[i].type, to->children[i].type)) return false;
        return true;
    }
    if (f == t && is_primitive(f) && f != FLOE_TYPE_DECIMAL128 && f != FLOE_TYPE_FIXED_BINARY) return true;
    if (t == FLOE_TYPE_STRING && is_primitive(f)) return true;
    if (is_int(f)) {
        /* bigint into int: PostgreSQL's assignment cast; a value out of
         * range fails when the cast runs, so nothing is lost silently. */
        if (is_int(t) || t == FLOE_TYPE_FLOAT64 || t == FLOE_TYPE_FLOAT32) return true;
        if (t == FLOE_TYPE_DECIMAL128) return true; /* checked per value, as bigint into int */
        return false;
    }
    if (f == FLOE_TYPE_FLOAT32) return t == FLOE_TYPE_FLOAT64;
    if (f == FLOE_TYPE_DECIMAL128) {
        if (t == FLOE_TYPE_FLOAT64 || t == FLOE_TYPE_FLOAT32) return true;
        /* PostgreSQL's assignment to numeric(p, s): fewer fraction digits
         * round (half away from zero), too many integer digits fail per
         * value — so `amount / 100` fills a decimal(10,2) column. */
        return t == FLOE_TYPE_DECIMAL128;
    }
    if (f == FLOE_TYPE_DATE32) return is_ts(t);
    if (is_ts(f)) return is_ts(t) && (is_ns(t) || !is_ns(f));
    if (f == FLOE_TYPE_FIXED_BINARY) return t == FLOE_TYPE_BINARY || (t == f && to->byte_width == from->byte_width);
    if (f == FLOE_TYPE_UUID) return t == FLOE_TYPE_FIXED_BINARY && to->byte_width == 16;
    return false;
}

/* Is column `i` of `query`'s output a constant (a VALUES row, a literal
 * in the select list)?  An expression over constants ('a' || 'b',
 * CAST(1 AS double) * 2) has a type of its own, as in PostgreSQL. */
static bool constant_column(const floe_lplan *query, int32_t i) {
    if (query->kind == FLOE_L_PHYSICAL && query->physical && floe_plan_is_values(query->physical)) return true;
    if (query->kind == FLOE_L_PROJECT && i < query->n_exprs) return query->exprs[i]->kind == FLOE_EXPR_LITERAL;
    return false;
}

/* The expression filling a table column of type `to` from query column
 * `src` of type `from`. */
static floe_status assign(const char *col, const floe_type *from, const floe_type *to, bool constant,
                          int32_t src, const floe_schema *qschema, floe_expr **out) {
    *out = NULL;
    floe_expr *c = NULL;
    FLOE_TRY(floe_expr_column(src, &c));
    if (floe_type_equals(from, to)) {
        *out = c;
        return NULL;
    }
    char b1[256], b2[256];
    floe_status st = NULL;
    if (!constant && !assignable(from, to)) {
        st = floe_error(FLOE_ERR_TYPE, "column '%s' is of type %s but the expression is of type %s", col,
                        type_word(to, b1, sizeof b1), type_word(from, b2, sizeof b2));
    } else {
        st = floe_expr_cast(c, (floe_type *)to, out);
        floe_type *check = NULL;
        if (!st) st = floe_expr_type(*out, qschema, &check);
        floe_type_release(check);
        if (st) {
            floe_status_free(st);
            st = floe_error(FLOE_ERR_TYPE, "column '%s' is of type %s but the expression is of type %s", col,
                            type_word(to, b1, sizeof b1), type_word(from, b2, sizeof b2));
            floe_expr_release(*out);
            *out = NULL;
        }
    }
    floe_expr_release(c);
    return st;
}

/* A table column by name: exact, else a unique case-insensitive match. */
static int32_t find_column(const floe_ice_type *root, const char *name) {
    for (int32_t i = 0; i < root->n_fields; i++)
        if (strcmp(root->fields[i].name, name) == 0) return i;
    int32_t found = -1;
    for (int32_t i = 0; i < root->n_fields; i++) {
        if (floe_str_ieq(floe_str_c(root->fields[i].name), floe_str_c(name))) {
            if (found >= 0) return -1;
            found = i;
        }
    }
    return found;
}

static floe_status err_at(floe_session *s, const int32_t *locations, int32_t i, floe_code code, const char *fmt,
                          const char *a, const char *b) {
    int32_t loc = locations && i >= 0 ? locations[i] : -1;
    return floe_session_error_at(s, loc, code, fmt, a, b);
}

/* map[t] = the query column filling table column t, or -1. */
static floe_status column_map(floe_session *s, const floe_ice_type *root, const char *label,
                              const char *const *cols, const int32_t *locations, int32_t n_cols, int32_t n_query,
                              int32_t *map) {
    int32_t nt = root->n_fields;
    for (int32_t t = 0; t < nt; t++) map[t] = -1;
    if (n_cols == 0) {
        if (n_query > nt)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "INSERT has more expressions (%d) than table %s has columns (%d)", (int)n_query, label,
                              (int)nt);
        for (int32_t q = 0; q < n_query; q++) map[q] = q;
        return NULL;
    }
    for (int32_t i = 0; i < n_cols; i++) {
        int32_t t = find_column(root, cols[i]);
        if (t < 0)
            return err_at(s, locations, i, FLOE_ERR_NOT_FOUND, "column '%s' of table %s does not exist", cols[i],
                          label);
        if (map[t] >= 0)
            return err_at(s, locations, i, FLOE_ERR_INVALID_ARGUMENT, "column '%s' is specified more than once%s",
                          cols[i], "");
        map[t] = i;
    }
    if (n_query > n_cols)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "INSERT has more expressions (%d) than target columns (%d)",
                          (int)n_query, (int)n_cols);
    if (n_query < n_cols)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "INSERT has more target columns (%d) than expressions (%d)",
                          (int)n_cols, (int)n_query);
    return NULL;
}

/* A PROJECT node over `input` (consumed) with `exprs` (consumed) named
 * `names` (copied). */
static floe_status project(floe_lplan *input, floe_expr **exprs, const char *const *names, int32_t n,
                           floe_lplan **out) {
    *out = NULL;
    floe_field *fields = floe_calloc((size_t)n + 1, sizeof *fields);
    floe_schema *schema = NULL;
    floe_status st = fields ? NULL : oom();
    for (int32_t i = 0; !st && i < n; i++) {
        floe_type *t = NULL;
        st = floe_expr_type(exprs[i], input->schema, &t);
        bool nullable = true;
        if (!st && exprs[i]->kind == FLOE_EXPR_COLUMN)
            nullable = floe_schema_field(input->schema, exprs[i]->column)->nullable;
        else if (!st && exprs[i]->kind == FLOE_EXPR_CAST && exprs[i]->args[0]->kind == FLOE_EXPR_COLUMN)
            nullable = floe_schema_field(input->schema, exprs[i]->args[0]->column)->nullable;
        if (!st) st = floe_field_init(&fields[i], names[i], t, nullable, -1);
        floe_type_release(t);
    }
    if (!st) st = floe_type_struct(fields, n, &schema);
    floe_lplan *in[1] = {input};
    if (!st) {
        st = floe_lplan_new(FLOE_L_PROJECT, schema, in, 1, out);
        input = NULL; /* consumed by floe_lplan_new, also on failure */
    }
    if (!st) {
        (*out)->n_exprs = n;
        (*out)->exprs = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        (*out)->names = floe_calloc((size_t)n + 1, sizeof(char *));
        if (!(*out)->exprs || !(*out)->names) st = oom();
        for (int32_t i = 0; !st && i < n; i++) {
            (*out)->exprs[i] = exprs[i];
            exprs[i] = NULL;
            if (!((*out)->names[i] = floe_strdup(names[i]))) st = oom();
        }
        if (st) (*out)->n_exprs = 0;
    }
    for (int32_t i = 0; i < n; i++) {
        floe_expr_release(exprs[i]);
        if (fields) floe_field_clear(&fields[i]);
    }
    floe_free(fields);
    floe_type_release(schema);
    floe_lplan_free(input);
    if (st) {
        floe_lplan_free(*out);
        *out = NULL;
    }
    return st;
}

/* The row-level prefix (_file, _pos, _op) passed through, _op as int. */
static floe_status prefix_columns(const floe_lplan *query, int32_t n_prefix, floe_expr **exprs, const char **names) {
    static const char *const pnames[FLOE_DELTA_PREFIX] = {"_file", "_pos", "_op", "_row_id",
                                                          "_last_updated_sequence_number"};
    for (int32_t i = 0; i < n_prefix; i++) {
        names[i] = pnames[i];
        const floe_type *from = floe_schema_field(query->schema, i)->type;
        if (i == 2 && from->id != FLOE_TYPE_INT32)
            FLOE_TRY(assign("_op", from, floe_type_primitive(FLOE_TYPE_INT32), true, i, query->schema, &exprs[i]));
        else
            FLOE_TRY(floe_expr_column(i, &exprs[i]));
    }
    return NULL;
}

/* First projection: [the row-level prefix, then] the table columns in
 * schema order; map[t]: the query column of table column t, -1 none. */
static floe_status shape_columns(floe_session *s, const floe_ice_type *root, const char *label, int32_t n_prefix,
                                 const int32_t *map, floe_lplan *query, floe_lplan **out) {
    int32_t nt = root->n_fields, nq = floe_schema_num_fields(query->schema);
    floe_expr **exprs = floe_calloc((size_t)(n_prefix + nt) + 1, sizeof *exprs);
    const char **names = floe_calloc((size_t)(n_prefix + nt) + 1, sizeof *names);
    floe_status st = (exprs && names) ? NULL : oom();
    (void)s;
    if (!st && nq < n_prefix) st = floe_error(FLOE_ERR_INTERNAL, "row-level write input without its prefix");
    if (!st) st = prefix_columns(query, n_prefix, exprs, names);
    for (int32_t t = 0; !st && t < nt; t++) {
        const floe_ice_field *f = &root->fields[t];
        names[n_prefix + t] = f->name;
        floe_type *to = NULL;
        st = floe_ice_type_to_columnar(f->type, &to);
        if (!st && map[t] < 0) {
            /* A column the INSERT leaves out gets its write-default (Iceberg
             * v3's, which pyiceberg also writes on v2 tables), else NULL. */
            const floe_ice_value *wd = f->write_default && !f->write_default->is_null ? f->write_default : NULL;
            if (wd && !floe_ice_type_is_nested(f->type)) {
                floe_array *one = NULL;
                st = floe_ice_value_array(wd, f->type, to, 1, &one);
                if (!st) st = floe_expr_literal(one, &exprs[t]);
                floe_array_release(one);
                if (st) st = floe_status_wrap(st, "column '%s' of table %s: its write-default", f->name, label);
            } else if (f->required) {
                st = floe_error(FLOE_ERR_CONSTRAINT,
                                "column '%s' of table %s is required (NOT NULL) but the INSERT gives it no value",
                                f->name, label);
            } else {
                st = floe_expr_lit_null(to, &exprs[t]);
            }
        } else if (!st) {
            const floe_type *from = floe_schema_field(query->schema, map[t])->type;
            st = assign(f->name, from, to, constant_column(query, map[t]), map[t], query->schema, &exprs[n_prefix + t]);
        }
        floe_type_release(to);
    }
    if (!st) {
        st = project(query, exprs, names, n_prefix + nt, out);
        query = NULL;
    } else {
        for (int32_t t = 0; exprs && t < n_prefix + nt; t++) floe_expr_release(exprs[t]);
    }
    floe_lplan_free(query);
    floe_free(exprs);
    floe_free(names);
    return st;
}

/* First projection of an INSERT: table columns in schema order. */
static floe_status table_columns(floe_session *s, const floe_ice_type *root, const char *label,
                                 const char *const *cols, const int32_t *locations, int32_t n_cols,
                                 floe_lplan *query, floe_lplan **out) {
    int32_t nt = root->n_fields, nq = floe_schema_num_fields(query->schema);
    int32_t *map = floe_calloc((size_t)nt + 1, sizeof *map);
    floe_status st = map ? NULL : oom();
    if (!st) st = column_map(s, root, label, cols, locations, n_cols, nq, map);
    if (!st) {
        st = shape_columns(s, root, label, 0, map, query, out);
        query = NULL;
    }
    floe_lplan_free(query);
    floe_free(map);
    return st;
}

/* Second projection: [the prefix and] the table columns again, then the
 * partition values. */
static floe_status partition_columns(const floe_ice_type *root, const floe_ice_partition_spec *spec,
                                     const char *label, int32_t n_prefix, floe_lplan *cols, floe_lplan **out) {
    int32_t np = spec ? spec->n_fields : 0;
    int32_t nt = n_prefix + root->n_fields; /* passed through */
    if (np == 0) {
        *out = cols;
        return NULL;
    }
    floe_expr **exprs = floe_calloc((size_t)(nt + np), sizeof *exprs);
    const char **names = floe_calloc((size_t)(nt + np), sizeof *names);
    char **owned = floe_calloc((size_t)np, sizeof *owned);
    floe_status st = (exprs && names && owned) ? NULL : oom();
    for (int32_t t = 0; !st && t < nt; t++) {
        names[t] = floe_schema_field(cols->schema, t)->name;
        st = floe_expr_column(t, &exprs[t]);
    }
    for (int32_t k = 0; !st && k < np; k++) {
        const floe_ice_partition_field *pf = &spec->fields[k];
        int32_t src = -1;
        for (int32_t t = 0; t < root->n_fields; t++)
            if (root->fields[t].id == pf->source_id) src = n_prefix + t;
        if (pf->n_source_ids > 1 || src < 0) {
            st = floe_error(FLOE_ERR_UNSUPPORTED,
                            "table %s: partition field '%s' is computed from %s; only top-level source columns "
                            "can be written yet",
                            label, pf->name, pf->n_source_ids > 1 ? "several columns" : "a nested or missing column");
            break;
        }
        char text[FLOE_ICE_TRANSFORM_NAME_MAX + 16];
        floe_ice_transform_format(&pf->transform, text, sizeof text);
        floe_expr *lit = NULL, *col = NULL;
        st = floe_expr_lit_string(text, &lit);
        if (!st) st = floe_expr_column(src, &col);
        floe_expr *args[2] = {lit, col};
        if (!st) st = floe_expr_call("iceberg_transform", args, 2, &exprs[nt + k]);
        floe_expr_release(lit);
        floe_expr_release(col);
        size_t len = strlen(pf->name) + 16;
        owned[k] = floe_malloc(len);
        if (!st && !owned[k]) st = oom();
        if (!st) {
            snprintf(owned[k], len, "_partition.%s", pf->name);
            names[nt + k] = owned[k];
        }
    }
    if (!st) {
        st = project(cols, exprs, names, nt + np, out);
        cols = NULL;
    } else {
        for (int32_t i = 0; exprs && i < nt + np; i++) floe_expr_release(exprs[i]);
    }
    floe_lplan_free(cols);
    for (int32_t k = 0; owned && k < np; k++) floe_free(owned[k]);
    floe_free(owned);
    floe_free(exprs);
    floe_free(names);
    return st;
}

floe_status floe_sql_bind_write_input(floe_session *s, const floe_ice_table *t, const char *label,
                                      const char *const *cols, const int32_t *locations, int32_t n_cols,
                                      floe_lplan *query, floe_lplan **out) {
    *out = NULL;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    if (!schema) {
        floe_lplan_free(query);
        return floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", label);
    }
    floe_lplan *shaped = NULL;
    FLOE_TRY(table_columns(s, schema->root, label, cols, locations, n_cols, query, &shaped));
    return partition_columns(schema->root, spec, label, 0, shaped, out);
}

floe_status floe_sql_bind_delta_input(floe_session *s, const floe_ice_table *t, const char *label,
                                      const int32_t *map, floe_lplan *query, floe_lplan **out) {
    *out = NULL;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    if (!schema) {
        floe_lplan_free(query);
        return floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", label);
    }
    if (!map) { /* DELETE: the prefix alone */
        const floe_ice_type empty = {0};
        return shape_columns(s, &empty, label, FLOE_DELTA_PREFIX, NULL, query, out);
    }
    floe_lplan *shaped = NULL;
    FLOE_TRY(shape_columns(s, schema->root, label, FLOE_DELTA_PREFIX, map, query, &shaped));
    return partition_columns(schema->root, spec, label, FLOE_DELTA_PREFIX, shaped, out);
}
