/*
 * proc_rewrite.c — rewrite_data_files(table, strategy, sort_order,
 * options, where): Spark's compaction procedure.
 *
 * Planning (Iceberg Java's RewriteDataFilesSparkAction): the data files of
 * the current snapshot that `where` may match (the scan's own pruning of
 * an Iceberg filter made from the SQL predicate) are grouped per partition
 * by the bin-pack rules of proc_rewrite_plan.c.  Each group becomes one
 * output partition of an ordinary write plan:
 *
 *   IcebergCommit (replace) ← Coalesce ← IcebergWrite ← [Sort]
 *     ← Projection (the delta prefix, columns, partition values)
 *       ← IcebergScan (one task group per file group)
 *
 * so groups are rewritten by every thread and, under mpirun, every rank,
 * and the coordinator commits once.  The scan applies every delete, so
 * the new files carry none; the writers roll at Java's writeMaxFileSize
 * and do not redistribute rows (write.distribution-mode none), so a group
 * becomes its own files.  The commit is a row delta with operation
 * "replace": the rewritten files removed, the new ones added, the
 * position deletes and DVs left with nothing to apply to dropped (as
 * Java's remove-dangling-deletes does for them); validated under snapshot
 * isolation against the commits since the snapshot read — a delete file
 * added for a rewritten file is a conflict (nothing committed), appends
 * are retried on top.  In v3 rows keep their _row_id and sequence number.
 *
 * strategy => 'sort' sorts each group by sort_order ('a DESC NULLS LAST,
 * b', Spark's syntax) or the table's sort order; sort_order =>
 * 'zorder(a, b)' by the Z-order key of those columns (iceberg_zorder,
 * func_zorder.c: interleaved bits of order-preserving bytes).  With
 * partial-progress.enabled the groups are committed in up to
 * partial-progress.max-commits commits, each its own plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "floe/exec.h"
#include "floe/exec_ops.h"
#include "floe/exec_scan.h"
#include "floe/exec_write.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_metadata_columns.h"
#include "floe/iceberg_sort_order.h"
#include "floe/memory.h"
#include "sql/dml.h"
#include "sql/procedures/proc_rewrite.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256
#define DEFAULT_TARGET (512LL * 1024 * 1024)

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "rewrite_data_files: out of memory"); }

/* ---- options ------------------------------------------------------------- */

static const char *const k_option_names[] = {
    "target-file-size-bytes", "min-file-size-bytes", "max-file-size-bytes", "min-input-files",
    "rewrite-all", "max-file-group-size-bytes", "delete-file-threshold", "delete-ratio-threshold",
    "partial-progress.enabled", "partial-progress.max-commits", "partial-progress.max-failed-commits",
    "max-concurrent-file-group-rewrites", "use-starting-sequence-number", "rewrite-job-order",
    "remove-dangling-deletes", "output-spec-id", "compression-factor", "shuffle-partitions-per-file", NULL};

static const char *option(const floe_proc_arg *opts, const char *key) {
    const char *v = NULL;
    for (int32_t i = 0; opts->given && i < opts->n; i++)
        if (strcmp(opts->strs[2 * i], key) == 0) v = opts->strs[2 * i + 1];
    return v;
}

static floe_status opt_long(const floe_proc_call *call, const floe_proc_arg *opts, const char *key, int64_t dflt,
                            int64_t *out) {
    const char *v = option(opts, key);
    *out = dflt;
    if (!v) return NULL;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (!*v || !end || *end)
        return floe_proc_error(call, opts, FLOE_ERR_INVALID_ARGUMENT, "option '%s' is '%s', not an integer", key, v);
    *out = (int64_t)x;
    return NULL;
}

static floe_status opt_bool(const floe_proc_call *call, const floe_proc_arg *opts, const char *key, bool *out) {
    const char *v = option(opts, key);
    *out = false;
    if (!v) return NULL;
    if (!strcasecmp(v, "true")) *out = true;
    else if (strcasecmp(v, "false") != 0)
        return floe_proc_error(call, opts, FLOE_ERR_INVALID_ARGUMENT, "option '%s' is '%s', not true or false", key, v);
    return NULL;
}

extern const floe_proc_def floe_proc_trino_optimize;

/* Trino's DataSize text: a number and an optional unit B, kB, MB, GB, TB,
 * PB (powers of 1024). */
static bool parse_data_size(const char *text, int64_t *out) {
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0)) return false;
    while (*end == ' ') end++;
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    double mult = 1;
    if (*end) {
        int u = -1;
        for (int k = 0; k < 6 && u < 0; k++)
            if (!strcasecmp(end, units[k])) u = k;
        if (u < 0) return false;
        for (int k = 0; k < u; k++) mult *= 1024;
    }
    if (v * mult > 9.0e18) return false;
    *out = (int64_t)(v * mult);
    return true;
}

/* Trino's optimize: every file under file_size_threshold (default 100MB)
 * or with deletes is a candidate, and a partition's candidates are merged
 * when there are two or more (or one has deletes). */
static floe_status trino_thresholds(const floe_proc_call *call, rw_options *o) {
    const floe_proc_arg *t = floe_proc_get(call, "file_size_threshold");
    int64_t threshold = 100LL * 1024 * 1024;
    if (t->given && !parse_data_size(t->str, &threshold))
        return floe_proc_error(call, t, FLOE_ERR_INVALID_ARGUMENT, "file_size_threshold: invalid data size '%s' "
                               "(a number and B, kB, MB, GB, TB or PB)", t->str);
    o->min_size = threshold;
    if (o->target <= threshold) o->target = threshold + 1;
    o->max_size = INT64_MAX;
    o->min_input_files = 2;
    o->delete_file_threshold = 1;
    return NULL;
}

static floe_status read_options(const floe_proc_call *call, const floe_ice_table_metadata *md, rw_options *o) {
    const floe_proc_arg *opts = floe_proc_get(call, "options");
    for (int32_t i = 0; opts->given && i < opts->n; i++) {
        bool known = false;
        for (int32_t k = 0; k_option_names[k] && !known; k++) known = !strcmp(opts->strs[2 * i], k_option_names[k]);
        if (!known)
            return floe_proc_error(call, opts, FLOE_ERR_INVALID_ARGUMENT,
                                   "Cannot use options [%s], they are not supported by the action or the rewriter",
                                   opts->strs[2 * i]);
    }
    memset(o, 0, sizeof *o);
    int64_t dflt = DEFAULT_TARGET;
    const char *prop = floe_ice_tm_property(md, "write.target-file-size-bytes");
    if (prop && *prop) dflt = strtoll(prop, NULL, 10);
    FLOE_TRY(opt_long(call, opts, "target-file-size-bytes", dflt, &o->target));
    FLOE_TRY(opt_long(call, opts, "min-file-size-bytes", (int64_t)((double)o->target * 0.75), &o->min_size));
    FLOE_TRY(opt_long(call, opts, "max-file-size-bytes", (int64_t)((double)o->target * 1.80), &o->max_size));
    FLOE_TRY(opt_long(call, opts, "min-input-files", 5, &o->min_input_files));
    FLOE_TRY(opt_long(call, opts, "max-file-group-size-bytes", 100LL * 1024 * 1024 * 1024, &o->max_group));
    FLOE_TRY(opt_long(call, opts, "delete-file-threshold", INT32_MAX, &o->delete_file_threshold));
    FLOE_TRY(opt_long(call, opts, "partial-progress.max-commits", 10, &o->max_commits));
    FLOE_TRY(opt_long(call, opts, "max-concurrent-file-group-rewrites", 5, &o->max_concurrent));
    FLOE_TRY(opt_bool(call, opts, "rewrite-all", &o->rewrite_all));
    FLOE_TRY(opt_bool(call, opts, "partial-progress.enabled", &o->partial));
    o->delete_ratio = 0.3;
    const char *ratio = option(opts, "delete-ratio-threshold");
    if (ratio) {
        char *end = NULL;
        o->delete_ratio = strtod(ratio, &end);
        if (!*ratio || *end || !(o->delete_ratio > 0) || o->delete_ratio > 1)
            return floe_proc_error(call, opts, FLOE_ERR_INVALID_ARGUMENT,
                                   "'delete-ratio-threshold' is set to %s but must be > 0 and <= 1", ratio);
    }
    /* Java's checks, with its messages. */
    const char *why = NULL;
    char msg[256];
    if (o->target <= 0) {
        snprintf(msg, sizeof msg, "'target-file-size-bytes' is set to %lld but must be > 0", (long long)o->target);
        why = msg;
    } else if (o->min_size < 0) {
        snprintf(msg, sizeof msg, "'min-file-size-bytes' is set to %lld but must be >= 0", (long long)o->min_size);
        why = msg;
    } else if (o->target <= o->min_size) {
        snprintf(msg, sizeof msg, "'target-file-size-bytes' (%lld) must be > 'min-file-size-bytes' (%lld), all new "
                 "files will be smaller than the min threshold", (long long)o->target, (long long)o->min_size);
        why = msg;
    } else if (o->target >= o->max_size) {
        snprintf(msg, sizeof msg, "'target-file-size-bytes' (%lld) must be < 'max-file-size-bytes' (%lld), all new "
                 "files will be larger than the max threshold", (long long)o->target, (long long)o->max_size);
        why = msg;
    } else if (o->min_input_files <= 0) {
        snprintf(msg, sizeof msg, "'min-input-files' is set to %lld but must be > 0", (long long)o->min_input_files);
        why = msg;
    } else if (o->max_group <= 0) {
        snprintf(msg, sizeof msg, "'max-file-group-size-bytes' is set to %lld but must be > 0",
                 (long long)o->max_group);
        why = msg;
    } else if (o->delete_file_threshold < 1) {
        snprintf(msg, sizeof msg, "'delete-file-threshold' is set to %lld but must be >= 1",
                 (long long)o->delete_file_threshold);
        why = msg;
    } else if (o->max_commits <= 0) {
        snprintf(msg, sizeof msg, "Cannot set partial-progress.max-commits to %lld, the value must be positive when "
                 "partial-progress.enabled is true", (long long)o->max_commits);
        why = msg;
    } else if (o->max_concurrent <= 0) {
        snprintf(msg, sizeof msg, "Cannot set max-concurrent-file-group-rewrites to %lld, the value must be positive.",
                 (long long)o->max_concurrent);
        why = msg;
    }
    if (why) return floe_proc_error(call, opts, FLOE_ERR_INVALID_ARGUMENT, "%s", why);
    if (call->def == &floe_proc_trino_optimize) FLOE_TRY(trino_thresholds(call, o));
    const char *order = option(opts, "rewrite-job-order");
    if (order && strcasecmp(order, "none") != 0 && strcasecmp(order, "bytes-asc") != 0 &&
        strcasecmp(order, "bytes-desc") != 0 && strcasecmp(order, "files-asc") != 0 &&
        strcasecmp(order, "files-desc") != 0)
        return floe_proc_error(call, opts, FLOE_ERR_INVALID_ARGUMENT, "Invalid rewrite job order name: %s", order);
    return NULL;
}

/* ---- where ----------------------------------------------------------------- */

static const floe_lplan *find_scan(const floe_lplan *p) {
    if (!p) return NULL;
    if (p->kind == FLOE_L_ICEBERG_SCAN) return p;
    for (int32_t i = 0; i < p->n_inputs; i++) {
        const floe_lplan *s = find_scan(p->inputs[i]);
        if (s) return s;
    }
    return NULL;
}

/* A filter left above the scan: 1 constant false or NULL, 2 other, 0 none. */
static int remaining_filter(const floe_lplan *p) {
    if (!p) return 0;
    int k = 0;
    if (p->kind == FLOE_L_FILTER && p->predicate) {
        const floe_expr *e = p->predicate;
        bool lit = e->kind == FLOE_EXPR_LITERAL && e->literal;
        k = lit && (floe_array_is_null(e->literal, 0) || !floe_array_get_bool(e->literal, 0)) ? 1 : lit ? 0 : 2;
    }
    for (int32_t i = 0; i < p->n_inputs && k != 1; i++) {
        int c = remaining_filter(p->inputs[i]);
        if (c == 1 || (c == 2 && k == 0)) k = c;
    }
    return k;
}

static floe_status quote_ident(floe_buf *b, const char *id) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    for (const char *c = id; *c; c++) {
        if (*c == '"') FLOE_TRY(floe_buf_append_byte(b, '"'));
        FLOE_TRY(floe_buf_append_byte(b, (uint8_t)*c));
    }
    return floe_buf_append_byte(b, '"');
}

/* The Iceberg filter the scan would prune with for `SELECT ... WHERE
 * <where>`: *out NULL for every file; *none when no file can match. */
static floe_status where_filter(floe_proc_call *call, const char *ns, const char *name, floe_ice_expr **out,
                                bool *none) {
    const floe_proc_arg *where = floe_proc_get(call, "where");
    *out = NULL;
    *none = false;
    if (!where->given) return NULL;
    floe_session *s = call->s;
    floe_buf sql;
    floe_buf_init(&sql);
    floe_status st = floe_buf_append_str(&sql, "SELECT 1 FROM ");
    if (!st) st = quote_ident(&sql, ns);
    if (!st) st = floe_buf_append_byte(&sql, '.');
    if (!st) st = quote_ident(&sql, name);
    if (!st) st = floe_buf_printf(&sql, " WHERE %s", where->str);
    floe_sql_script *script = NULL;
    if (!st) st = floe_sql_parse((const char *)sql.data, &script);
    if (!st && (script->n_stmts != 1 || strcmp(script->stmts[0].kind, "SelectStmt") != 0))
        st = floe_error(FLOE_ERR_SYNTAX, "not a single predicate");
    floe_lplan *lp = NULL;
    if (!st) {
        /* Bind with the predicate's own text, so its errors point into it. */
        const floe_sql_script *saved_script = s->script;
        const floe_sql_stmt *saved_stmt = s->stmt;
        s->script = script;
        s->stmt = &script->stmts[0];
        st = floe_sql_bind_query(s, script->stmts[0].node, &lp);
        if (!st) st = floe_sql_optimize(&lp, &s->opts);
        s->script = saved_script;
        s->stmt = saved_stmt;
    }
    if (!st) {
        const floe_lplan *scan = find_scan(lp);
        int rest = remaining_filter(lp);
        if (!scan || rest == 1) *none = true; /* WHERE false */
        else if (scan->pushed && !(*out = floe_ice_expr_copy(scan->pushed))) st = oom();
        else if (!scan->pushed && rest == 2)
            st = floe_error(FLOE_ERR_UNSUPPORTED, "cannot select files by it (no part of it is a filter on the "
                            "table's columns Iceberg can evaluate)");
    }
    floe_lplan_free(lp);
    floe_sql_script_free(script);
    floe_buf_free(&sql);
    if (st) {
        floe_status e = floe_proc_error(call, where, floe_status_code(st), "where '%s': %s", where->str,
                                        floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    return NULL;
}

/* ---- sort orders ----------------------------------------------------------- */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n') p++;
    return p;
}

/* A keyword at p (case-insensitive, then a non-identifier character). */
static bool keyword(const char **p, const char *kw) {
    size_t n = strlen(kw);
    if (strncasecmp(*p, kw, n) != 0) return false;
    char c = (*p)[n];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') return false;
    *p = skip_ws(*p + n);
    return true;
}

/* Spark's sort_order text ("a DESC NULLS LAST, b") as Iceberg sort order
 * JSON over the current schema's top-level columns. */
static floe_status parse_sort_order(const floe_proc_call *call, const floe_proc_arg *arg,
                                    const floe_ice_schema *schema, char **out) {
    *out = NULL;
    floe_buf b;
    floe_buf_init(&b);
    floe_status st = floe_buf_append_str(&b, "{\"order-id\":1,\"fields\":[");
    const char *p = skip_ws(arg->str);
    int32_t n = 0;
    if (!*p) st = floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "sort_order is empty");
    while (!st && *p) {
        char col[NAME_CAP];
        size_t len = 0;
        if (*p == '`' || *p == '"') {
            char q = *p++;
            while (*p && *p != q && len + 1 < sizeof col) col[len++] = *p++;
            if (*p == q) p++;
        } else {
            while (*p && *p != ' ' && *p != ',' && *p != '\t' && len + 1 < sizeof col) col[len++] = *p++;
        }
        col[len] = 0;
        p = skip_ws(p);
        const floe_ice_field *f = NULL;
        for (int32_t i = 0; i < schema->root->n_fields && !f; i++)
            if (!strcasecmp(schema->root->fields[i].name, col)) f = &schema->root->fields[i];
        if (!f) {
            st = floe_proc_error(call, arg, FLOE_ERR_NOT_FOUND, "sort_order: cannot find field '%s' in the table's "
                                 "columns", col);
            break;
        }
        bool desc = false, nulls_first;
        if (keyword(&p, "desc")) desc = true;
        else (void)keyword(&p, "asc");
        nulls_first = !desc; /* Spark's defaults */
        if (keyword(&p, "nulls")) {
            if (keyword(&p, "first")) nulls_first = true;
            else if (keyword(&p, "last")) nulls_first = false;
            else {
                st = floe_proc_error(call, arg, FLOE_ERR_SYNTAX, "sort_order: NULLS must be followed by FIRST or LAST");
                break;
            }
        }
        st = floe_buf_printf(&b, "%s{\"transform\":\"identity\",\"source-id\":%d,\"direction\":\"%s\","
                             "\"null-order\":\"%s\"}", n++ ? "," : "", (int)f->id, desc ? "desc" : "asc",
                             nulls_first ? "nulls-first" : "nulls-last");
        if (!st && *p && *p != ',')
            st = floe_proc_error(call, arg, FLOE_ERR_SYNTAX, "sort_order: unexpected '%s'", p);
        if (*p == ',') p = skip_ws(p + 1);
    }
    if (!st) st = floe_buf_append_str(&b, "]}");
    if (st) {
        floe_buf_free(&b);
        return st;
    }
    *out = (char *)b.data;
    return NULL;
}

/* zorder(a, b, ...): the columns' positions in the current schema. */
static floe_status parse_zorder(const floe_proc_call *call, const floe_proc_arg *arg, const floe_ice_schema *schema,
                                int32_t **cols, int32_t *n) {
    const char *p = skip_ws(arg->str) + 6;
    p = skip_ws(p);
    if (*p != '(') return floe_proc_error(call, arg, FLOE_ERR_SYNTAX, "sort_order: expected zorder(column, ...)");
    p = skip_ws(p + 1);
    *cols = floe_calloc((size_t)schema->root->n_fields + 1, sizeof **cols);
    if (!*cols) return oom();
    *n = 0;
    while (*p && *p != ')') {
        char col[NAME_CAP];
        size_t len = 0;
        while (*p && *p != ',' && *p != ')' && *p != ' ' && len + 1 < sizeof col) col[len++] = *p++;
        col[len] = 0;
        p = skip_ws(p);
        int32_t at = -1;
        for (int32_t i = 0; i < schema->root->n_fields && at < 0; i++)
            if (!strcasecmp(schema->root->fields[i].name, col)) at = i;
        if (at < 0)
            return floe_proc_error(call, arg, FLOE_ERR_NOT_FOUND, "sort_order: cannot find field '%s' in the "
                                   "table's columns", col);
        for (int32_t i = 0; i < *n; i++)
            if ((*cols)[i] == at)
                return floe_proc_error(call, arg, FLOE_ERR_INVALID_ARGUMENT, "sort_order: zorder column '%s' "
                                       "given twice", col);
        if (*n < schema->root->n_fields) (*cols)[(*n)++] = at;
        if (*p == ',') p = skip_ws(p + 1);
    }
    if (*p != ')' || *skip_ws(p + 1) || *n == 0)
        return floe_proc_error(call, arg, FLOE_ERR_SYNTAX, "sort_order: expected zorder(column, ...)");
    return NULL;
}

/* The order each group is sorted by (NULL: bin-pack) and the id its files
 * record: the table order it equals, else 0; or, for zorder(...), the
 * columns whose Z-order key each group is sorted by. */
static floe_status strategy_order(const floe_proc_call *call, const floe_ice_table *t, char **order_json,
                                  int32_t *order_id, int32_t **zcols, int32_t *n_z) {
    *order_json = NULL;
    *order_id = 0;
    *zcols = NULL;
    *n_z = 0;
    const floe_proc_arg *strategy = floe_proc_get(call, "strategy");
    const floe_proc_arg *sort = floe_proc_get(call, "sort_order");
    bool is_sort = strategy->given && !strcasecmp(strategy->str, "sort");
    if (strategy->given && !is_sort && strcasecmp(strategy->str, "binpack") != 0)
        return floe_proc_error(call, strategy, FLOE_ERR_INVALID_ARGUMENT,
                               "unsupported strategy: %s. Only binpack or sort is supported", strategy->str);
    if (sort->given && !is_sort && strategy->given)
        return floe_proc_error(call, sort, FLOE_ERR_INVALID_ARGUMENT,
                               "Cannot set sort_order with the binpack strategy");
    if (sort->given) is_sort = true; /* Spark: a sort order implies the sort strategy */
    if (!is_sort) return NULL;
    const floe_ice_table_metadata *md = t->md;
    const floe_ice_sort_order *dflt = floe_ice_tm_sort_order(md, md->default_sort_order_id);
    if (sort->given) {
        if (!strncasecmp(skip_ws(sort->str), "zorder", 6))
            return parse_zorder(call, sort, floe_ice_tm_current_schema(md), zcols, n_z);
        FLOE_TRY(parse_sort_order(call, sort, floe_ice_tm_current_schema(md), order_json));
        /* The files record the table order this one equals, else 0. */
        char *d = NULL, *mine = NULL;
        floe_ice_sort_order *parsed = NULL;
        floe_status st = floe_ice_sort_order_from_json_text(*order_json, &parsed);
        if (!st && dflt && dflt->n_fields > 0) {
            parsed->order_id = dflt->order_id;
            st = floe_ice_sort_order_to_json_text(parsed, &mine);
            if (!st) st = floe_ice_sort_order_to_json_text(dflt, &d);
            if (!st && !strcmp(d, mine)) *order_id = dflt->order_id;
        }
        floe_free(mine);
        mine = NULL;
        if (!st) {
            parsed->order_id = *order_id;
            st = floe_ice_sort_order_to_json_text(parsed, &mine);
        }
        if (!st) {
            floe_free(*order_json);
            *order_json = mine;
            mine = NULL;
        }
        floe_ice_sort_order_free(parsed);
        floe_free(d);
        floe_free(mine);
        return st;
    }
    if (!dflt || dflt->n_fields == 0)
        return floe_proc_error(call, strategy, FLOE_ERR_INVALID_ARGUMENT,
                               "Cannot sort data without a valid sort order, table is unsorted and no sort order is "
                               "provided");
    *order_id = dflt->order_id;
    return floe_ice_sort_order_to_json_text(dflt, order_json);
}

/* ---- the write plan --------------------------------------------------------- */

typedef struct commit_row {
    bool seen;
    int64_t files, snapshot_id;
} commit_row;

static floe_status collect_commit(void *arg, const floe_batch *b) {
    commit_row *r = arg;
    if (b->num_rows < 1 || b->num_columns < 3) return NULL;
    r->seen = true;
    r->files = floe_array_get_int64(b->columns[1], 0);
    r->snapshot_id = floe_array_is_null(b->columns[2], 0) ? -1 : floe_array_get_int64(b->columns[2], 0);
    return NULL;
}

/* The scan's columns: _file, _pos, _row_id, _last_updated_sequence_number,
 * then the table's. */
#define SCAN_PREFIX 4

/* Projection over the scan: the delta prefix (_file, _pos, _op = WRITE,
 * _row_id, _last_updated_sequence_number), the table's columns, and one
 * partition value per default-spec field. */
static floe_status delta_projection(floe_plan *scan, const floe_ice_schema *schema,
                                    const floe_ice_partition_spec *spec, floe_plan **out) {
    int32_t nt = schema->root->n_fields, np = spec ? spec->n_fields : 0;
    int32_t n = FLOE_DELTA_PREFIX + nt + np;
    floe_expr **exprs = floe_calloc((size_t)n, sizeof *exprs);
    char **names = floe_calloc((size_t)n, sizeof *names);
    floe_status st = exprs && names ? NULL : oom();
    static const char *const prefix[] = {"_file", "_pos", "_op", "_row_id", "_last_updated_sequence_number"};
    static const int32_t prefix_col[] = {0, 1, -1, 2, 3};
    for (int32_t i = 0; !st && i < FLOE_DELTA_PREFIX; i++) {
        names[i] = floe_strdup(prefix[i]);
        st = prefix_col[i] < 0 ? floe_expr_lit_int32(FLOE_ROW_OP_WRITE, &exprs[i])
                               : floe_expr_column(prefix_col[i], &exprs[i]);
    }
    for (int32_t t = 0; !st && t < nt; t++) {
        names[FLOE_DELTA_PREFIX + t] = floe_strdup(schema->root->fields[t].name);
        st = floe_expr_column(SCAN_PREFIX + t, &exprs[FLOE_DELTA_PREFIX + t]);
    }
    for (int32_t k = 0; !st && k < np; k++) {
        const floe_ice_partition_field *pf = &spec->fields[k];
        int32_t src = -1;
        for (int32_t t = 0; t < nt; t++)
            if (schema->root->fields[t].id == pf->source_id) src = SCAN_PREFIX + t;
        if (pf->n_source_ids > 1 || src < 0) {
            st = floe_error(FLOE_ERR_UNSUPPORTED, "partition field '%s' is not computed from one top-level column",
                            pf->name);
            break;
        }
        char text[FLOE_ICE_TRANSFORM_NAME_MAX + 16];
        floe_ice_transform_format(&pf->transform, text, sizeof text);
        floe_expr *lit = NULL, *col = NULL;
        st = floe_expr_lit_string(text, &lit);
        if (!st) st = floe_expr_column(src, &col);
        floe_expr *args[2] = {lit, col};
        if (!st) st = floe_expr_call("iceberg_transform", args, 2, &exprs[FLOE_DELTA_PREFIX + nt + k]);
        floe_expr_release(lit);
        floe_expr_release(col);
        size_t len = strlen(pf->name) + 16;
        if (!st && !(names[FLOE_DELTA_PREFIX + nt + k] = floe_malloc(len))) st = oom();
        if (!st) snprintf(names[FLOE_DELTA_PREFIX + nt + k], len, "_partition.%s", pf->name);
    }
    for (int32_t i = 0; !st && i < n; i++)
        if (!names[i]) st = oom();
    if (!st) st = floe_plan_projection(scan, exprs, (const char *const *)names, n, out);
    for (int32_t i = 0; i < n; i++) {
        if (exprs) floe_expr_release(exprs[i]);
        if (names) floe_free(names[i]);
    }
    floe_free(exprs);
    floe_free(names);
    return st;
}

/* zorder: each partition sorted by iceberg_zorder(columns), the key
 * dropped again.  The columns are table positions. */
static floe_status zorder_sort(floe_plan *input, const int32_t *zcols, int32_t n_z, floe_plan **out) {
    int32_t n = floe_schema_num_fields(input->schema);
    floe_expr **exprs = floe_calloc((size_t)n + 1, sizeof *exprs), **args = floe_calloc((size_t)n_z, sizeof *args);
    const char **names = floe_calloc((size_t)n + 1, sizeof *names);
    floe_plan *keyed = NULL, *sorted = NULL;
    floe_status st = exprs && args && names ? NULL : oom();
    for (int32_t i = 0; !st && i < n; i++) {
        names[i] = floe_schema_field(input->schema, i)->name;
        st = floe_expr_column(i, &exprs[i]);
    }
    for (int32_t i = 0; !st && i < n_z; i++) st = floe_expr_column(FLOE_DELTA_PREFIX + zcols[i], &args[i]);
    if (!st) st = floe_expr_call("iceberg_zorder", args, n_z, &exprs[n]);
    names[n] = "_zorder";
    if (!st) st = floe_plan_projection(input, exprs, names, n + 1, &keyed);
    floe_sort_key key = {NULL, false, true};
    if (!st) st = floe_expr_column(n, &key.expr);
    if (!st) st = floe_plan_sort(keyed, &key, 1, -1, &sorted);
    floe_expr_release(key.expr);
    if (!st) st = floe_plan_projection(sorted, exprs, names, n, out);
    for (int32_t i = 0; exprs && i <= n; i++) floe_expr_release(exprs[i]);
    for (int32_t i = 0; args && i < n_z; i++) floe_expr_release(args[i]);
    floe_free(exprs);
    floe_free(args);
    floe_free(names);
    floe_plan_release(keyed);
    floe_plan_release(sorted);
    return st;
}

typedef struct rewrite_run {
    floe_proc_call *call;
    const floe_ice_table *t;
    const char *ns, *name;
    int64_t base;             /* the snapshot planned from */
    const rw_plan *plan;
    const rw_options *o;
    const char *order_json;
    int32_t order_id;
    const int32_t *zcols;     /* zorder columns (n_z > 0) */
    int32_t n_z;
    /* results */
    int64_t rewritten, added, bytes, removed_deletes;
} rewrite_run;

/* The number of delete files a committed snapshot removed (its summary). */
static int64_t removed_delete_files(floe_session *s, const char *ns, const char *name, int64_t snapshot_id) {
    floe_ice_table *t = NULL;
    int64_t n = 0;
    floe_status st = floe_catalog_load_table(s->catalog, ns, name, &t);
    if (st) {
        floe_status_free(st); /* the count is informative only */
        return 0;
    }
    const floe_ice_snapshot *snap = floe_ice_tm_snapshot(t->md, snapshot_id);
    for (int32_t i = 0; snap && i < snap->n_summary; i++)
        if (!strcmp(snap->summary[i].key, "removed-delete-files")) n = strtoll(snap->summary[i].value, NULL, 10);
    floe_ice_table_free(t);
    return n;
}

/* Rewrite groups [g0, g1) in one plan and one commit. */
static floe_status rewrite_groups(rewrite_run *r, int32_t g0, int32_t g1) {
    const floe_ice_table *t = r->t;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    int32_t ng = g1 - g0, nt = schema->root->n_fields, nf = 0;
    for (int32_t g = g0; g < g1; g++) nf += r->plan->groups[g].n;
    uint8_t **groups = floe_calloc((size_t)ng, sizeof *groups);
    size_t *lens = floe_calloc((size_t)ng, sizeof *lens);
    int32_t *ids = floe_calloc((size_t)(SCAN_PREFIX + nt), sizeof *ids);
    const char **removed = floe_calloc((size_t)nf + 1, sizeof *removed);
    char *schema_json = NULL;
    floe_plan *scan = NULL, *proj = NULL, *write = NULL;
    floe_status st = groups && lens && ids && removed ? NULL : oom();
    int64_t bytes = 0;
    int32_t k = 0;
    for (int32_t g = g0; !st && g < g1; g++) {
        st = rw_group_serialize(r->plan, g, g - g0, &groups[g - g0], &lens[g - g0]);
        for (int32_t i = 0; i < r->plan->groups[g].n; i++) {
            const floe_ice_scan_task *task = r->plan->tasks[r->plan->groups[g].first + i];
            removed[k++] = task->path;
            bytes += task->file_size_in_bytes;
        }
    }
    ids[0] = FLOE_ICE_MD_FILE_ID;
    ids[1] = FLOE_ICE_MD_POS_ID;
    ids[2] = FLOE_ICE_MD_ROW_ID_ID;
    ids[3] = FLOE_ICE_MD_LAST_UPDATED_SEQ_ID;
    for (int32_t i = 0; ids && i < nt; i++) ids[SCAN_PREFIX + i] = schema->root->fields[i].id;
    const floe_property *io_props = NULL;
    size_t n_io = 0;
    floe_fileio_properties(t->io, &io_props, &n_io);
    if (!st) st = floe_ice_schema_to_json_text(schema, &schema_json);
    if (!st)
        st = floe_plan_iceberg_scan_io(t->metadata_location, t->root, t->allow_moved_paths, schema_json, ids,
                                       SCAN_PREFIX + nt, (const uint8_t *const *)groups, lens, ng, NULL, 0, io_props,
                                       n_io, &scan);
    if (!st) st = delta_projection(scan, schema, spec, &proj);
    if (!st && r->n_z > 0) {
        floe_plan *z = NULL;
        st = zorder_sort(proj, r->zcols, r->n_z, &z);
        floe_plan_release(proj);
        proj = z;
    }
    /* Files roll at Java's writeMaxFileSize; rows stay in their group. */
    char target[32];
    snprintf(target, sizeof target, "%lld", (long long)rw_write_max_file_size(r->o));
    const char *extra[] = {"write.target-file-size-bytes", target, "write.distribution-mode", "none"};
    if (!st)
        st = floe_sql_plan_rewrite_write(r->call->s, proj, t, r->ns, r->name, r->base, extra, 2, r->order_json,
                                         r->order_id, removed, k, &write);
    commit_row row = {false, 0, -1};
    if (!st) {
        floe_result_sink sink = {&row, NULL, collect_commit, NULL, NULL};
        int64_t n = 0;
        st = floe_session_run_plan(r->call->s, write, &sink, &n);
        if (!st && !row.seen) st = floe_error(FLOE_ERR_INTERNAL, "rewrite_data_files: the commit returned no row");
    }
    if (!st) {
        r->rewritten += k;
        r->added += row.files;
        r->bytes += bytes;
        if (row.snapshot_id >= 0)
            r->removed_deletes += removed_delete_files(r->call->s, r->ns, r->name, row.snapshot_id);
    }
    floe_plan_release(scan);
    floe_plan_release(proj);
    floe_plan_release(write);
    for (int32_t i = 0; groups && i < ng; i++) floe_free(groups[i]);
    floe_free(groups);
    floe_free(lens);
    floe_free(ids);
    floe_free(removed);
    floe_free(schema_json);
    return st;
}

/* ---- the procedure ------------------------------------------------------------ */

/* rewrite-job-order: bytes-asc / -desc, files-asc / -desc; none keeps
 * the planning order (ties too). */
typedef struct keyed_group {
    int64_t key;
    rw_group g;
} keyed_group;

static int cmp_keyed(const void *a_, const void *b_) {
    const keyed_group *a = a_, *b = b_;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->g.first > b->g.first) - (a->g.first < b->g.first);
}

static floe_status order_groups(const floe_proc_call *call, rw_plan *plan) {
    const char *v = option(floe_proc_get(call, "options"), "rewrite-job-order");
    bool by_bytes = v && !strncasecmp(v, "bytes", 5), by_files = v && !strncasecmp(v, "files", 5);
    if ((!by_bytes && !by_files) || plan->n_groups < 2) return NULL;
    bool desc = strlen(v) > 5 && !strcasecmp(v + 5, "-desc");
    keyed_group *k = floe_calloc((size_t)plan->n_groups, sizeof *k);
    if (!k) return oom();
    for (int32_t i = 0; i < plan->n_groups; i++) {
        int64_t x = by_bytes ? plan->groups[i].bytes : plan->groups[i].n;
        k[i].key = desc ? -x : x;
        k[i].g = plan->groups[i];
    }
    qsort(k, (size_t)plan->n_groups, sizeof *k, cmp_keyed);
    for (int32_t i = 0; i < plan->n_groups; i++) plan->groups[i] = k[i].g;
    floe_free(k);
    return NULL;
}

static floe_status plan_files(const floe_ice_table *t, const floe_ice_expr *filter, bool only, char **paths,
                              int32_t n_paths, floe_ice_scan_plan **out) {
    floe_ice_scan_options so;
    floe_ice_scan_options_init(&so);
    so.target_partitions = 1;
    so.split_size = INT64_MAX / 4; /* one task per file */
    so.only_files_set = only;
    so.only_files = (const char *const *)paths;
    so.n_only_files = n_paths;
    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_ID, t->md->current_snapshot_id, NULL, 0};
    return floe_ice_scan_plan_new(t, &sel, NULL, 0, filter, &so, out);
}

static floe_status run_rewrite(floe_proc_call *call, const floe_ice_table *t, const char *ns, const char *name,
                               rewrite_run *r) {
    rw_options o;
    FLOE_TRY(read_options(call, t->md, &o));
    char *order_json = NULL;
    int32_t order_id = 0, *zcols = NULL, n_z = 0;
    floe_status zs = strategy_order(call, t, &order_json, &order_id, &zcols, &n_z);
    if (zs) {
        floe_free(zcols);
        floe_free(order_json);
        return zs;
    }
    floe_ice_expr *filter = NULL;
    bool none = false;
    floe_status st = where_filter(call, ns, name, &filter, &none);
    floe_ice_scan_plan *sp = NULL, *matched = NULL;
    char **paths = NULL;
    rw_plan plan;
    memset(&plan, 0, sizeof plan);
    if (!st && !none && t->md->current_snapshot_id != FLOE_ICE_NO_SNAPSHOT) {
        if (filter) {
            /* The files the filter may match, then those files whole: a
             * rewrite keeps every row of the files it reads. */
            st = plan_files(t, filter, false, NULL, 0, &matched);
            int32_t n = 0;
            int64_t cap = matched ? matched->stats.n_data_files + 1 : 1;
            if (!st && !(paths = floe_calloc((size_t)cap, sizeof *paths))) st = oom();
            for (int32_t g = 0; !st && g < matched->n_groups; g++)
                for (int32_t i = 0; i < matched->groups[g]->n_tasks && n < cap; i++)
                    if (matched->groups[g]->tasks[i].split_index == 0)
                        paths[n++] = (char *)matched->groups[g]->tasks[i].path;
            if (!st) st = plan_files(t, NULL, true, paths, n, &sp);
        } else {
            st = plan_files(t, NULL, false, NULL, 0, &sp);
        }
        if (!st) st = rw_plan_groups(sp, &o, &plan);
        if (!st) st = order_groups(call, &plan);
    }
    r->call = call;
    r->t = t;
    r->ns = ns;
    r->name = name;
    r->base = t->md->current_snapshot_id;
    r->plan = &plan;
    r->o = &o;
    r->order_json = order_json;
    r->order_id = order_id;
    r->zcols = zcols;
    r->n_z = n_z;
    /* One commit, or with partial progress up to max-commits, each of
     * ceil(groups / max-commits) groups (Java's groupsPerCommit). */
    int32_t per_commit = plan.n_groups;
    if (o.partial && plan.n_groups > 0)
        per_commit = (int32_t)((plan.n_groups + o.max_commits - 1) / o.max_commits);
    for (int32_t g = 0; !st && g < plan.n_groups; g += per_commit)
        st = rewrite_groups(r, g, g + per_commit < plan.n_groups ? g + per_commit : plan.n_groups);
    rw_plan_free(&plan);
    floe_free(paths);
    floe_ice_scan_plan_free(sp);
    floe_ice_scan_plan_free(matched);
    floe_ice_expr_free(filter);
    floe_free(order_json);
    floe_free(zcols);
    return st;
}

static floe_status rewrite_data_files(floe_proc_call *call) {
    char ns[NAME_CAP], name[NAME_CAP];
    const floe_proc_arg *table = floe_proc_get(call, "table");
    FLOE_TRY(floe_proc_table_name(call, table, ns, NAME_CAP, name, NAME_CAP));
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_load_table(call->s->catalog, ns, name, &t);
    if (st) {
        floe_status e = floe_proc_error(call, table, floe_status_code(st), "%s", floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    rewrite_run r;
    memset(&r, 0, sizeof r);
    st = run_rewrite(call, t, ns, name, &r);
    floe_ice_table_free(t);
    if (st) return floe_status_wrap(st, "rewrite_data_files on %s.%s", ns, name);
    FLOE_TRY(floe_proc_add_row(call));
    FLOE_TRY(floe_proc_add_long(call, r.rewritten));
    FLOE_TRY(floe_proc_add_long(call, r.added));
    FLOE_TRY(floe_proc_add_long(call, r.bytes));
    FLOE_TRY(floe_proc_add_long(call, 0));
    return floe_proc_add_long(call, r.removed_deletes);
}

static const floe_proc_param k_params[] = {
    {"table", FLOE_PROC_STRING, true},     {"strategy", FLOE_PROC_STRING, false},
    {"sort_order", FLOE_PROC_STRING, false}, {"options", FLOE_PROC_MAP, false},
    {"where", FLOE_PROC_STRING, false},
};
static const floe_proc_column k_columns[] = {
    {"rewritten_data_files_count", FLOE_PROC_LONG}, {"added_data_files_count", FLOE_PROC_LONG},
    {"rewritten_bytes_count", FLOE_PROC_LONG},      {"failed_data_files_count", FLOE_PROC_LONG},
    {"removed_delete_files_count", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_rewrite_data_files = {"rewrite_data_files", k_params, 5, k_columns, 5,
                                                    rewrite_data_files, false};

/* ALTER TABLE t EXECUTE optimize(file_size_threshold => '128MB') (Trino):
 * the same bin-pack with Trino's thresholds (trino_thresholds); the table
 * comes from the statement, the other parameters stay unset. */
static const floe_proc_param k_optimize_params[] = {
    {"file_size_threshold", FLOE_PROC_STRING, false}, {"table", FLOE_PROC_STRING, false},
    {"strategy", FLOE_PROC_STRING, false},            {"sort_order", FLOE_PROC_STRING, false},
    {"options", FLOE_PROC_MAP, false},                {"where", FLOE_PROC_STRING, false},
};
const floe_proc_def floe_proc_trino_optimize = {"optimize", k_optimize_params, 2, k_columns, 5, rewrite_data_files,
                                                false};
