/*
 * session.c — running SQL (include/floe/session.h): the statement loop,
 * session options (SET / SHOW / RESET), queries streamed to the result
 * sink, EXPLAIN [ANALYZE] and COPY (query) TO 'file.parquet'.  Every other
 * statement goes to the DML module (floe_sql_exec_dml: INSERT, CREATE
 * TABLE AS, DELETE) or the DDL module (floe_sql_exec_utility); CALL goes
 * to the procedures (sql/procedures/procedure.c).
 *
 * A query runs as: bind (bind*.c) → floe_sql_optimize → floe_sql_physical
 * with one output partition → execute, each batch handed to the sink as it
 * arrives.  Nothing is cached between statements: tables are loaded from
 * the catalog while binding.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "base/buffer.h"
#include "base/redact.h"
#include "base/str.h"
#include "base/tz.h"
#include "floe/exec_metrics.h"
#include "floe/memory.h"
#include "formats/parquet/writer.h"
#include "sql/bind_csv.h"
#include "sql/ddl.h"
#include "sql/dml.h"
#include "sql/dml_internal.h"
#include "sql/pgnode.h"
#include "sql/procedures/procedure.h"
#include "sql/progress.h"
#include "sql/sql_opaque.h"
#include "sql/session_internal.h"

/* ------------------------------------------------------------- options */

typedef struct option_def {
    const char *name;
    const char *doc;
    int64_t min, max;
} option_def;

static const option_def k_options[] = {
    {"target_partitions", "partitions a query is split into", 1, 4096},
    {"batch_size", "target rows per batch", 1, 16 * 1024 * 1024},
    {"scan_concurrency", "files a scan partition reads at once", 1, 1024},
    {"read_ahead", "batches a scan reads ahead", 1, 1024},
    {"max_recursion_depth", "iterations a WITH RECURSIVE query may run", 1, INT64_MAX},
    {"expire_snapshots_min_retention_s", "shortest retention_threshold of EXECUTE expire_snapshots, seconds", 0,
     INT64_MAX / 1000},
    {"remove_orphan_files_min_retention_s", "shortest retention_threshold of EXECUTE remove_orphan_files, seconds",
     0, INT64_MAX / 1000},
};
#define N_OPTIONS ((int32_t)(sizeof(k_options) / sizeof(k_options[0])))

static int64_t option_get(const floe_sql_options *o, int32_t i) {
    switch (i) {
    case 0: return o->target_partitions;
    case 1: return o->batch_size;
    case 2: return o->scan_concurrency;
    case 3: return o->read_ahead;
    case 4: return o->max_recursion_depth;
    case 5: return o->expire_snapshots_min_retention_s;
    default: return o->remove_orphan_files_min_retention_s;
    }
}

static void option_put(floe_sql_options *o, int32_t i, int64_t v) {
    switch (i) {
    case 0: o->target_partitions = (int32_t)v; break;
    case 1: o->batch_size = v; break;
    case 2: o->scan_concurrency = (int32_t)v; break;
    case 3: o->read_ahead = (int32_t)v; break;
    case 4: o->max_recursion_depth = v; break;
    case 5: o->expire_snapshots_min_retention_s = v; break;
    default: o->remove_orphan_files_min_retention_s = v; break;
    }
}

static floe_status option_find(const char *name, int32_t *idx) {
    for (int32_t i = 0; i < N_OPTIONS; i++) {
        if (floe_str_ieq_c(floe_str_c(name), k_options[i].name)) {
            *idx = i;
            return NULL;
        }
    }
    const char *cands[N_OPTIONS];
    for (int32_t i = 0; i < N_OPTIONS; i++) cands[i] = k_options[i].name;
    return floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "option", floe_str_c(name), cands, N_OPTIONS);
}

/* The text session settings: Spark's write-audit-publish id (spark.wap.id,
 * or wap.id) and the branch writes go to (write.branch, or Spark's
 * spark.wap.branch / wap.branch).  NULL: not one of them. */
static int string_setting_kind(const char *name) {
    floe_str n = floe_str_c(name);
    if (floe_str_ieq_c(n, "spark.wap.id") || floe_str_ieq_c(n, "wap.id")) return 1;
    if (floe_str_ieq_c(n, "write.branch") || floe_str_ieq_c(n, "spark.wap.branch") || floe_str_ieq_c(n, "wap.branch"))
        return 2;
    return 0;
}

static char **string_setting(floe_session *s, const char *name) {
    int k = string_setting_kind(name);
    return k == 1 ? &s->wap_id : k == 2 ? &s->write_branch : NULL;
}

static bool is_wap_setting(const char *name) { return string_setting_kind(name) != 0; }

/* TimeZone (SET TIME ZONE parses to it too). */
static bool is_tz_setting(const char *name) { return floe_str_ieq_c(floe_str_c(name), "timezone"); }

/* SET TimeZone: a zone name, abbreviation or POSIX zone (base/tz.c), a
 * number of hours east of UTC (`numeric`: SET TIME ZONE 3 gives it), or
 * DEFAULT / LOCAL: UTC. */
static floe_status set_time_zone(floe_session *s, const char *value, bool numeric) {
    floe_str v = floe_str_trim(floe_str_c(value));
    floe_tz *tz = NULL;
    if (!floe_str_ieq_c(v, "default") && !floe_str_ieq_c(v, "local")) {
        char posix[48];
        int64_t hours = 0;
        floe_status nst = numeric ? floe_parse_int64(v, "time zone", &hours) : NULL;
        if (numeric && !nst && hours >= -15 && hours <= 15) {
            /* PostgreSQL's name for it: <-07>+07 (POSIX signs are west). */
            snprintf(posix, sizeof posix, "<%c%02lld>%c%02lld", hours < 0 ? '-' : '+', (long long)llabs(hours),
                     hours < 0 ? '+' : '-', (long long)llabs(hours));
            v = floe_str_c(posix);
        }
        floe_status_free(nst);
        floe_status st = floe_tz_lookup_sql(v.ptr, v.len, &tz);
        if (st) return floe_status_wrap(st, "SET TimeZone");
        if (floe_tz_is_utc(tz) && floe_str_ieq_c(v, "utc")) {
            floe_tz_free(tz);
            tz = NULL;
        }
    }
    floe_tz_free(s->tz);
    s->tz = tz;
    floe_tz_set_session(s->tz);
    return NULL;
}

/* memory_limit (DuckDB's max_memory is the same) and temp_directory. */
static bool is_memory_limit_setting(const char *name) {
    floe_str n = floe_str_c(name);
    return floe_str_ieq_c(n, "memory_limit") || floe_str_ieq_c(n, "max_memory");
}

static bool is_temp_dir_setting(const char *name) { return floe_str_ieq_c(floe_str_c(name), "temp_directory"); }

/* The default limit: 80% of the machine's memory, as DuckDB. */
static int64_t default_memory_limit(void) {
    int64_t phys = floe_mem_physical();
    return phys > 0 ? phys / 10 * 8 : 0;
}

/* '4GB', '256MB', '1.5GiB', '512kB', '1000000' (bytes), '80%' (of the
 * machine's memory).  Units are powers of 1024, as PostgreSQL reads them;
 * the limit must be at least 1 MiB. */
static floe_status parse_memory_limit(floe_str v, int64_t *out) {
    char text[64];
    if (v.len == 0 || v.len >= sizeof text)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "memory_limit: '%.*s' is not a size such as '4GB' or '80%%'",
                          (int)v.len, v.ptr);
    memcpy(text, v.ptr, v.len);
    text[v.len] = 0;
    char *end = NULL;
    errno = 0;
    double num = strtod(text, &end);
    while (end && *end == ' ') end++;
    double mult = 0;
    if (end == text || errno || !(num > 0)) mult = -1;
    else if (!*end || !strcasecmp(end, "b") || !strcasecmp(end, "bytes")) mult = 1;
    else if (!strcmp(end, "%")) mult = (double)floe_mem_physical() / 100.0;
    else if (!strcasecmp(end, "kb") || !strcasecmp(end, "kib") || !strcasecmp(end, "k")) mult = 1024.0;
    else if (!strcasecmp(end, "mb") || !strcasecmp(end, "mib") || !strcasecmp(end, "m")) mult = 1024.0 * 1024;
    else if (!strcasecmp(end, "gb") || !strcasecmp(end, "gib") || !strcasecmp(end, "g")) mult = 1024.0 * 1024 * 1024;
    else if (!strcasecmp(end, "tb") || !strcasecmp(end, "tib") || !strcasecmp(end, "t"))
        mult = 1024.0 * 1024 * 1024 * 1024;
    else mult = -1;
    if (mult < 0 || (!strcmp(end, "%") && num > 100))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "memory_limit: '%s' is not a size such as '4GB', '256MB' or '80%%'", text);
    double bytes = num * mult;
    if (bytes < 1024.0 * 1024 || bytes > 9.0e18)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "memory_limit: '%s' must be between 1MB and 8EB", text);
    *out = (int64_t)bytes;
    return NULL;
}

floe_status floe_session_set(floe_session *s, const char *name, const char *value) {
    if (is_tz_setting(name)) return set_time_zone(s, value, false);
    if (is_memory_limit_setting(name)) {
        floe_str v = floe_str_trim(floe_str_c(value));
        if (floe_str_ieq_c(v, "default")) {
            s->opts.memory_limit = s->defaults.memory_limit;
            return NULL;
        }
        return parse_memory_limit(v, &s->opts.memory_limit);
    }
    if (is_temp_dir_setting(name)) {
        floe_str v = floe_str_trim(floe_str_c(value));
        floe_free(s->temp_dir);
        s->temp_dir = NULL;
        if (v.len == 0 || floe_str_ieq_c(v, "default")) return NULL;
        s->temp_dir = floe_strndup(v.ptr, v.len);
        return s->temp_dir ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SET %s: out of memory", name);
    }
    char **field = string_setting(s, name);
    if (field) {
        floe_str v = floe_str_trim(floe_str_c(value));
        floe_free(*field);
        *field = NULL;
        if (v.len == 0 || floe_str_ieq_c(v, "default")) return NULL;
        *field = floe_strndup(v.ptr, v.len);
        return *field ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SET %s: out of memory", name);
    }
    int32_t i;
    FLOE_TRY(option_find(name, &i));
    int64_t v;
    floe_str text = floe_str_trim(floe_str_c(value));
    if (floe_str_ieq_c(text, "default")) {
        option_put(&s->opts, i, option_get(&s->defaults, i));
        return NULL;
    }
    char what[96];
    snprintf(what, sizeof what, "option '%s'", k_options[i].name);
    FLOE_TRY(floe_parse_int64(text, what, &v));
    if (v < k_options[i].min || v > k_options[i].max)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "option '%s' must be between %lld and %lld, not %lld",
                          k_options[i].name, (long long)k_options[i].min, (long long)k_options[i].max,
                          (long long)v);
    option_put(&s->opts, i, v);
    return NULL;
}

floe_status floe_session_show(floe_session *s, const char *name, char **value) {
    *value = NULL;
    if (is_memory_limit_setting(name)) {
        char buf[48];
        floe_mem_format(s->opts.memory_limit, buf, sizeof buf);
        *value = floe_strdup(s->opts.memory_limit > 0 ? buf : "unlimited");
        return *value ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SHOW %s: out of memory", name);
    }
    if (is_temp_dir_setting(name)) {
        char buf[4096];
        floe_session_temp_dir(s, buf, sizeof buf);
        *value = floe_strdup(buf);
        return *value ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SHOW %s: out of memory", name);
    }
    if (is_tz_setting(name)) {
        *value = floe_strdup(s->tz ? floe_tz_name(s->tz) : "UTC");
        return *value ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SHOW %s: out of memory", name);
    }
    char **field = string_setting(s, name);
    if (field) {
        *value = floe_strdup(*field ? *field : "");
        return *value ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SHOW %s: out of memory", name);
    }
    int32_t i;
    FLOE_TRY(option_find(name, &i));
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)option_get(&s->opts, i));
    *value = floe_strdup(buf);
    return *value ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SHOW %s: out of memory", name);
}

/* ------------------------------------------------------------ sessions */

/* Set once at start-up (before sessions open), read when one opens. */
static const floe_plan_executor *_Atomic g_default_executor;
static _Atomic int64_t g_default_memory_limit; /* --memory-limit; 0: 80% of RAM */

floe_status floe_session_set_default_memory_limit(const char *text) {
    int64_t v = 0;
    FLOE_TRY(parse_memory_limit(floe_str_trim(floe_str_c(text)), &v));
    g_default_memory_limit = v;
    return NULL;
}

void floe_session_set_default_executor(const floe_plan_executor *ex) {
    g_default_executor = ex;
}

floe_status floe_session_open(const char *warehouse, floe_session **out) {
    *out = NULL;
    if (!warehouse || !*warehouse) warehouse = getenv("FLOE_WAREHOUSE");
    if (!warehouse || !*warehouse) warehouse = "./warehouse";
    return floe_session_open_catalog(warehouse, NULL, 0, out);
}

/* The catalog is opened by URI and options (floe_catalog_open), so a REST
 * catalog's credentials reach it here and the commit node, reopening the
 * same URI, shares the authenticated client. */
floe_status floe_session_open_catalog(const char *uri, const floe_property *props, size_t n_props,
                                      floe_session **out) {
    *out = NULL;
    const char *warehouse = uri;
    if (!warehouse || !*warehouse) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "opening a session: no catalog URI");
    floe_session *s = floe_calloc(1, sizeof(*s));
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a session: out of memory");
    floe_cancel_init(&s->cancel, NULL);
    floe_threadpool *pool = NULL;
    floe_status st = floe_threadpool_default(&pool);
    if (st) goto fail;
    s->defaults.target_partitions = (int32_t)floe_threadpool_size(pool);
    if (s->defaults.target_partitions < 1) s->defaults.target_partitions = 1;
    s->defaults.batch_size = 8192;
    s->defaults.scan_concurrency = 2;
    s->defaults.read_ahead = 2;
    s->defaults.max_recursion_depth = 100000;
    s->defaults.expire_snapshots_min_retention_s = 7 * 86400;
    s->defaults.remove_orphan_files_min_retention_s = 7 * 86400;
    s->defaults.memory_limit = g_default_memory_limit > 0 ? g_default_memory_limit : default_memory_limit();
    s->qmem = floe_mem_tracker_new("query", NULL);
    if (!s->qmem) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a session: out of memory");
        goto fail;
    }
    s->executor = g_default_executor;
    if (s->executor && s->executor->target_partitions > 0)
        s->defaults.target_partitions = s->executor->target_partitions;
    s->opts = s->defaults;
    st = floe_fileio_new(NULL, 0, &s->io);
    if (st) goto fail;
    st = floe_catalog_open(warehouse, props, n_props, &s->catalog);
    if (st) goto fail;
    /* Checked first: a catalog may let this user read but not create. */
    bool have_default = false;
    st = floe_catalog_namespace_exists(s->catalog, "default", &have_default);
    if (!st && !have_default) st = floe_catalog_create_namespace(s->catalog, "default", true);
    if (st) goto fail;
    *out = s;
    return NULL;
fail:
    floe_session_close(s);
    if (strncmp(warehouse, "rest:", 5) != 0)
        return floe_status_wrap(st, "opening a session on warehouse '%s'", warehouse);
    /* A REST URI is shown redacted: a refused one may carry a password. */
    floe_buf red = FLOE_BUF_INIT;
    floe_status rst = floe_redact_url(&red, warehouse + 5);
    st = floe_status_wrap(st, "opening a session on catalog 'rest:%s'", rst ? "(uri)" : floe_buf_cstr(&red));
    floe_status_free(rst);
    floe_buf_free(&red);
    return st;
}

void floe_session_close(floe_session *s) {
    if (!s) return;
    floe_catalog_close(s->catalog);
    floe_fileio_free(s->io);
    floe_free(s->wap_id);
    floe_free(s->write_branch);
    floe_free(s->temp_dir);
    floe_free(s->target_branch);
    floe_tz_free(s->tz);
    floe_free(s->user);
    floe_free(s->database);
    floe_mem_tracker_drop(s->qmem);
    floe_free(s);
}

floe_status floe_session_set_client(floe_session *s, const char *user, const char *database) {
    char *u = user ? floe_strdup(user) : NULL, *d = database ? floe_strdup(database) : NULL;
    if ((user && !u) || (database && !d)) {
        floe_free(u);
        floe_free(d);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "session: out of memory");
    }
    floe_free(s->user);
    floe_free(s->database);
    s->user = u;
    s->database = d;
    return NULL;
}

void floe_session_cancel(floe_session *s) {
    if (s) floe_cancel_set(&s->cancel);
}

struct floe_catalog *floe_session_catalog(floe_session *s) {
    return s->catalog;
}

floe_status floe_session_error_at(const floe_session *s, int32_t location, floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    if (location < 0 || !s->script) return st;
    int32_t line, col;
    floe_sql_line_col(s->script->sql, location, &line, &col);
    return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
}

void floe_session_exec_ctx(floe_session *s, floe_exec_ctx *ctx) {
    memset(ctx, 0, sizeof(*ctx));
    ctx->batch_size = s->opts.batch_size;
    ctx->cancel = &s->cancel;
    ctx->scan_concurrency = s->opts.scan_concurrency;
    ctx->read_ahead = s->opts.read_ahead;
    ctx->mem = s->qmem;
    ctx->temp_dir = s->temp_dir;
}

void floe_session_temp_dir(const floe_session *s, char *buf, size_t cap) {
    if (s->temp_dir) {
        snprintf(buf, cap, "%s", s->temp_dir);
        return;
    }
    const char *t = getenv("TMPDIR");
    snprintf(buf, cap, "%s/floe", t && *t ? t : "/tmp");
}

floe_mem_tracker *floe_session_query_begin(floe_session *s) {
    floe_mem_set_limit(s->qmem, s->opts.memory_limit);
    floe_mem_reset_peak(s->qmem);
    return floe_mem_set_current(s->qmem);
}

floe_status floe_session_query_end(floe_session *s, floe_mem_tracker *prev, floe_status st) {
    floe_mem_set_current(prev);
    if (!st || floe_status_code(st) != FLOE_ERR_OUT_OF_MEMORY || atomic_load(&s->qmem->denied) == 0) return st;
    const char *msg = floe_status_message(st);
    if (strstr(msg, "out of memory (limit ")) return st;
    char lim[48];
    floe_mem_format(s->opts.memory_limit, lim, sizeof lim);
    floe_status out = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory (limit %s) in %s", lim, msg);
    floe_status_free(st);
    return out;
}

/* ------------------------------------------------------------- results */

floe_status floe_session_emit_strings(const floe_result_sink *sink, const char *const *col_names, int32_t n_cols,
                                      const char *const *cells, int64_t n_rows, const char *tag) {
    floe_field *fields = floe_calloc((size_t)n_cols, sizeof(floe_field));
    floe_array **cols = floe_calloc((size_t)n_cols, sizeof(floe_array *));
    floe_schema *schema = NULL;
    floe_batch *batch = NULL;
    floe_status st = NULL;
    if (!fields || !cols) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "result: out of memory");
        goto done;
    }
    for (int32_t c = 0; c < n_cols && !st; c++)
        st = floe_field_init(&fields[c], col_names[c], floe_type_primitive(FLOE_TYPE_STRING), true, -1);
    if (!st) st = floe_type_struct(fields, n_cols, &schema);
    for (int32_t c = 0; c < n_cols && !st; c++) {
        floe_builder *b = NULL;
        st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n_rows, &b);
        for (int64_t r = 0; r < n_rows && !st; r++) {
            const char *v = cells[r * n_cols + c];
            st = v ? floe_builder_append_string(b, v) : floe_builder_append_null(b);
        }
        if (!st) st = floe_builder_finish(b, &cols[c]);
        floe_builder_free(b);
    }
    if (!st) st = floe_batch_new(schema, cols, n_cols, n_rows, &batch);
    if (!st && sink && sink->begin) st = sink->begin(sink->arg, schema);
    if (!st && sink && sink->batch && n_rows > 0) st = sink->batch(sink->arg, batch);
    if (!st && sink && sink->end) st = sink->end(sink->arg, tag, n_rows);
done:
    floe_batch_release(batch);
    for (int32_t c = 0; c < n_cols; c++) {
        if (cols) floe_array_release(cols[c]);
        if (fields) floe_field_clear(&fields[c]);
    }
    floe_type_release(schema);
    floe_free(cols);
    floe_free(fields);
    return st;
}

floe_status floe_session_plan_query(floe_session *s, const json_t *query, floe_plan **out) {
    *out = NULL;
    floe_lplan *lp = NULL;
    FLOE_TRY(floe_sql_bind_query(s, query, &lp));
    floe_status st = floe_sql_optimize(&lp, &s->opts);
    if (!st) st = floe_sql_physical(lp, &s->opts, true, out);
    floe_lplan_free(lp);
    return st;
}

static floe_status run_streams(floe_session *s, const floe_plan *plan, const floe_exec_ctx *ctx,
                               const floe_result_sink *sink, int64_t *rows) {
    if (sink && sink->begin) FLOE_TRY(sink->begin(sink->arg, floe_plan_schema(plan)));
    /* With an executor (the MPI runtime) the plan runs there. */
    bool remote = s->executor && s->executor->open && floe_plan_partitions(plan) == 1;
    for (int32_t p = 0; p < floe_plan_partitions(plan); p++) {
        floe_stream *stream = NULL;
        FLOE_TRY(remote ? s->executor->open(s->executor->arg, plan, ctx, &stream)
                        : floe_plan_execute(plan, p, ctx, &stream));
        floe_status st = NULL;
        for (;;) {
            floe_batch *b = NULL;
            st = floe_cancel_check(&s->cancel, "query");
            if (!st) st = floe_stream_next(stream, &b);
            if (st || !b) break;
            *rows += b->num_rows;
            if (b->num_rows > 0 && sink && sink->batch) st = sink->batch(sink->arg, b);
            floe_batch_release(b);
            if (st) break;
        }
        floe_stream_close(stream);
        if (st) return st;
    }
    return NULL;
}

/* FLOE_PLAN_ROUNDTRIP=1: every plan a statement runs goes through the
 * plan codec first and the decoded copy runs instead (docs/ARCHITECTURE.md,
 * PostgreSQL's WRITE_READ_PARSE_PLAN_TREES): a node that forgets a part
 * fails the SQL tests the day it is written (CI runs them so). */
static bool plan_roundtrip_on(void) {
    const char *rt = getenv("FLOE_PLAN_ROUNDTRIP");
    return rt && strcmp(rt, "1") == 0;
}

static floe_status run_plan_now(floe_session *s, const floe_plan *plan, const floe_result_sink *sink,
                                int64_t *rows);

floe_status floe_session_run_plan(floe_session *s, const floe_plan *plan, const floe_result_sink *sink,
                                  int64_t *rows) {
    *rows = 0;
    if (!plan_roundtrip_on()) return run_plan_now(s, plan, sink, rows);
    floe_plan *copy = NULL;
    FLOE_TRY_CTX(floe_plan_roundtrip(plan, &copy), "FLOE_PLAN_ROUNDTRIP");
    floe_status st = run_plan_now(s, copy, sink, rows);
    floe_plan_release(copy);
    return st;
}

static floe_status run_plan_now(floe_session *s, const floe_plan *plan, const floe_result_sink *sink,
                                int64_t *rows) {
    floe_exec_ctx ctx;
    floe_session_exec_ctx(s, &ctx);
    floe_execution *x;
    FLOE_TRY(floe_execution_begin(&ctx, &x));
    floe_sql_progress prog; /* the sink's progress bar, when it has one */
    floe_sql_progress_start(&prog, plan, &ctx, &sink);
    floe_mem_tracker *prev = floe_session_query_begin(s);
    floe_status st = run_streams(s, plan, &ctx, sink, rows);
    floe_sql_progress_stop(&prog, st == NULL);
    floe_execution_end(x);
    return floe_session_query_end(s, prev, st);
}

/* ---------------------------------------------------------- statements */

static floe_status exec_query(floe_session *s, const json_t *query, const floe_result_sink *sink) {
    floe_plan *plan = NULL;
    FLOE_TRY(floe_session_plan_query(s, query, &plan));
    int64_t rows = 0;
    floe_status st = floe_session_run_plan(s, plan, sink, &rows);
    floe_plan_release(plan);
    if (!st && sink && sink->end) st = sink->end(sink->arg, "SELECT", rows);
    return st;
}

/* Lines of `text` as rows of one column "plan". */
static floe_status emit_plan_text(const floe_result_sink *sink, const char *text, const char *tag) {
    int64_t n = 0, cap = 16;
    const char **rows = floe_malloc_array((size_t)cap, sizeof(char *));
    char *copy = floe_strdup(text);
    floe_status st = NULL;
    if (!rows || !copy) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "EXPLAIN: out of memory");
        goto done;
    }
    for (char *line = copy; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (n == cap) {
            const char **nr = floe_realloc(rows, (size_t)cap * 2 * sizeof(char *));
            if (!nr) {
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "EXPLAIN: out of memory");
                goto done;
            }
            rows = nr;
            cap *= 2;
        }
        rows[n++] = line;
        if (!nl) break;
        line = nl + 1;
    }
    const char *names[] = {"plan"};
    st = floe_session_emit_strings(sink, names, 1, rows, n, tag);
done:
    floe_free(rows);
    floe_free(copy);
    return st;
}

static floe_status exec_explain(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    bool analyze = false;
    json_t *opts = floe_pg_get(body, "options");
    for (int32_t i = 0; i < floe_pg_list_len(opts); i++) {
        json_t *d = floe_pg_as(floe_pg_list_at(opts, i), "DefElem");
        const char *name = floe_pg_get_str(d, "defname");
        if (name && strcmp(name, "analyze") == 0) {
            floe_pg_const c = floe_pg_const_of(floe_pg_get(d, "arg"));
            analyze = c.kind == FLOE_PG_CONST_NONE || (c.kind == FLOE_PG_CONST_BOOL && c.ival) ||
                      (c.kind == FLOE_PG_CONST_STRING && strcmp(c.text, "false") != 0 && strcmp(c.text, "off") != 0);
        } else if (name && strcmp(name, "verbose") != 0 && strcmp(name, "costs") != 0) {
            return floe_session_error_at(s, floe_pg_get_int(d, "location", -1) >= 0 ? (int32_t)floe_pg_get_int(d, "location", -1) : -1,
                                         FLOE_ERR_UNSUPPORTED, "EXPLAIN option '%s' is not supported", name);
        }
    }
    json_t *query = floe_pg_get(body, "query");
    const char *qkind = floe_pg_node_kind(query);
    bool insert = qkind && strcmp(qkind, "InsertStmt") == 0;
    bool rowlevel = qkind && (strcmp(qkind, "DeleteStmt") == 0 || strcmp(qkind, "UpdateStmt") == 0 ||
                              strcmp(qkind, "MergeStmt") == 0);
    if (!qkind || (strcmp(qkind, "SelectStmt") != 0 && !insert && !rowlevel))
        return floe_error(FLOE_ERR_UNSUPPORTED, "EXPLAIN supports queries, INSERT, DELETE, UPDATE and MERGE only, "
                          "not %s", qkind ? qkind : "this");
    floe_plan *plan = NULL;
    if (rowlevel) {
        FLOE_TRY(floe_sql_plan_rowlevel(s, s->stmt, query, &plan));
        if (!plan) return emit_plan_text(sink, "(no row matches: nothing would be written)\n", "EXPLAIN");
    } else {
        FLOE_TRY(insert ? floe_sql_plan_insert(s, query, &plan) : floe_session_plan_query(s, query, &plan));
    }
    floe_buf text = FLOE_BUF_INIT;
    floe_status st = NULL;
    if (!analyze) {
        st = floe_plan_explain(plan, &text);
        if (!st && s->executor && s->executor->explain) st = s->executor->explain(s->executor->arg, plan, &text);
    } else if (s->executor && s->executor->analyze) {
        /* distributed: the executor runs it and reports per rank */
        floe_exec_ctx ctx;
        floe_session_exec_ctx(s, &ctx);
        st = floe_plan_explain(plan, &text);
        if (!st) st = s->executor->analyze(s->executor->arg, plan, &ctx, &text);
    } else {
        floe_exec_metrics *m = NULL;
        floe_execution *x = NULL;
        st = floe_exec_metrics_new(&m);
        if (!st) {
            floe_exec_ctx ctx;
            floe_session_exec_ctx(s, &ctx);
            ctx.metrics = m;
            floe_mem_tracker *prev = floe_session_query_begin(s);
            st = floe_execution_begin(&ctx, &x);
            /* Run every partition (the result is thrown away). */
            for (int32_t p = 0; p < floe_plan_partitions(plan) && !st; p++) {
                floe_stream *stream = NULL;
                st = floe_plan_execute(plan, p, &ctx, &stream);
                while (!st) {
                    floe_batch *b = NULL;
                    st = floe_stream_next(stream, &b);
                    if (st || !b) break;
                    floe_batch_release(b);
                }
                floe_stream_close(stream);
            }
            floe_execution_end(x); /* before the metrics: they pay for its states */
            st = floe_session_query_end(s, prev, st);
            if (!st) st = floe_plan_explain_analyze(plan, m, &text);
        }
        floe_exec_metrics_free(m);
    }
    floe_plan_release(plan);
    if (!st) st = emit_plan_text(sink, floe_buf_cstr(&text), analyze ? "EXPLAIN ANALYZE" : "EXPLAIN");
    floe_buf_free(&text);
    return st;
}

/* SET name = value | TO DEFAULT, RESET name, RESET ALL. */
static floe_status exec_set(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    const char *kind = floe_pg_get_str(body, "kind");
    const char *name = floe_pg_get_str(body, "name");
    const char *tag = "SET";
    if (kind && strcmp(kind, "VAR_RESET_ALL") == 0) {
        s->opts = s->defaults;
        floe_free(s->wap_id);
        s->wap_id = NULL;
        floe_free(s->write_branch);
        s->write_branch = NULL;
        floe_free(s->temp_dir);
        s->temp_dir = NULL;
        FLOE_TRY(set_time_zone(s, "default", false));
        tag = "RESET";
    } else if (kind && (strcmp(kind, "VAR_RESET") == 0 || strcmp(kind, "VAR_SET_DEFAULT") == 0)) {
        FLOE_TRY(floe_session_set(s, name ? name : "", "default"));
        if (strcmp(kind, "VAR_RESET") == 0) tag = "RESET";
    } else if (kind && strcmp(kind, "VAR_SET_VALUE") == 0) {
        json_t *args = floe_pg_get(body, "args");
        if (floe_pg_list_len(args) != 1)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "SET %s takes one value", name ? name : "");
        floe_pg_const c = floe_pg_const_of_sql(floe_pg_list_at(args, 0), s->script ? s->script->sql : NULL);
        char buf[32];
        const char *v = NULL;
        if (c.kind == FLOE_PG_CONST_INT) {
            snprintf(buf, sizeof buf, "%lld", (long long)c.ival);
            v = buf;
        } else if (c.kind == FLOE_PG_CONST_STRING || c.kind == FLOE_PG_CONST_FLOAT) {
            v = c.text;
        } else {
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "SET %s: the value must be a number or a string",
                              name ? name : "");
        }
        if (name && is_tz_setting(name) && c.kind != FLOE_PG_CONST_STRING) FLOE_TRY(set_time_zone(s, v, true));
        else FLOE_TRY(floe_session_set(s, name ? name : "", v));
    } else {
        return floe_error(FLOE_ERR_UNSUPPORTED, "this form of SET is not supported");
    }
    if (sink && sink->end) FLOE_TRY(sink->end(sink->arg, tag, 0));
    return NULL;
}

static floe_status exec_show(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                             const floe_result_sink *sink) {
    const char *name = floe_pg_get_str(body, "name");
    if (!name) name = "";
    if (strcmp(name, "all") == 0) {
        const char *names[] = {"name", "setting", "description"};
        const char *cells[N_OPTIONS * 3];
        char vals[N_OPTIONS][32];
        for (int32_t i = 0; i < N_OPTIONS; i++) {
            snprintf(vals[i], sizeof vals[i], "%lld", (long long)option_get(&s->opts, i));
            cells[i * 3] = k_options[i].name;
            cells[i * 3 + 1] = vals[i];
            cells[i * 3 + 2] = k_options[i].doc;
        }
        return floe_session_emit_strings(sink, names, 3, cells, N_OPTIONS, "SHOW");
    }
    if (is_wap_setting(name) || is_tz_setting(name) || is_memory_limit_setting(name) || is_temp_dir_setting(name)) {
        char *v = NULL;
        FLOE_TRY(floe_session_show(s, name, &v));
        const char *names[] = {is_tz_setting(name)             ? "TimeZone"
                               : is_memory_limit_setting(name) ? "memory_limit"
                               : is_temp_dir_setting(name)     ? "temp_directory"
                                                               : name};
        const char *cells[] = {v};
        floe_status st = floe_session_emit_strings(sink, names, 1, cells, 1, "SHOW");
        floe_free(v);
        return st;
    }
    int32_t idx;
    floe_status st = option_find(name, &idx);
    if (st) {
        /* SHOW TABLES, SHOW SCHEMAS ... belong to the DDL module. */
        bool handled = false;
        floe_status st2 = floe_sql_exec_utility(s, stmt, sink, &handled);
        if (handled || st2) {
            floe_status_free(st);
            return st2;
        }
        return st;
    }
    char *v = NULL;
    FLOE_TRY(floe_session_show(s, name, &v));
    const char *names[] = {k_options[idx].name};
    const char *cells[] = {v};
    st = floe_session_emit_strings(sink, names, 1, cells, 1, "SHOW");
    floe_free(v);
    return st;
}

/* COPY ... TO / FROM: copy.c. */
static floe_status exec_copy(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    return floe_sql_exec_copy(s, body, sink);
}

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static floe_status exec_stmt(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink) {
    const char *kind = stmt->kind;
    json_t *body = floe_pg_node_body(stmt->node);
    if (!stmt->describe) {
        if (strcmp(kind, "SelectStmt") == 0) return exec_query(s, stmt->node, sink);
        if (strcmp(kind, "ExplainStmt") == 0) return exec_explain(s, body, sink);
        if (strcmp(kind, "VariableSetStmt") == 0) return exec_set(s, body, sink);
        if (strcmp(kind, "VariableShowStmt") == 0 && !floe_sql_stmt_clause(stmt, FLOE_SQL_SHOW_FROM, -1))
            return exec_show(s, stmt, body, sink);
        if (strcmp(kind, "CopyStmt") == 0) return exec_copy(s, body, sink);
        if (strcmp(kind, "CallStmt") == 0) return floe_sql_exec_call(s, stmt, sink);
    }
    bool handled = false;
    if (!stmt->describe) FLOE_TRY(floe_sql_exec_dml(s, stmt, sink, &handled));
    if (handled) return NULL;
    FLOE_TRY(floe_sql_exec_utility(s, stmt, sink, &handled));
    if (!handled)
        return floe_session_error_at(s, stmt->location, FLOE_ERR_UNSUPPORTED, "statement %s is not supported",
                                     kind);
    return NULL;
}

floe_status floe_session_execute(floe_session *s, const char *sql, const floe_result_sink *sink) {
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(sql, &script));
    floe_status st = NULL;
    s->script = script;
    /* The session zone belongs to this thread while statements run here
     * (a session embedded in a thread that runs another one gets its own
     * back afterwards). */
    const floe_tz *outer_tz = floe_tz_session();
    for (int32_t i = 0; i < script->n_stmts && !st; i++) {
        const floe_sql_stmt *stmt = &script->stmts[i];
        floe_cancel_init(&s->cancel, NULL);
        s->stmt = stmt;
        s->stmt_time_us = now_us();
        floe_free(s->target_branch); /* set by the statement's write target, if any */
        s->target_branch = NULL;
        floe_tz_set_session(s->tz);
        st = exec_stmt(s, stmt, sink);
    }
    floe_tz_set_session(outer_tz);
    s->stmt = NULL;
    s->script = NULL;
    floe_sql_script_free(script);
    return st;
}

floe_status floe_session_describe(floe_session *s, const char *sql, floe_schema **out) {
    *out = NULL;
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(sql, &script));
    floe_status st = NULL;
    if (script->n_stmts == 1 && strcmp(script->stmts[0].kind, "SelectStmt") == 0 && !script->stmts[0].describe) {
        floe_cancel_init(&s->cancel, NULL);
        s->script = script;
        s->stmt = &script->stmts[0];
        s->stmt_time_us = now_us();
        floe_plan *plan = NULL;
        st = floe_session_plan_query(s, script->stmts[0].node, &plan);
        if (!st) *out = floe_type_retain((floe_schema *)floe_plan_schema(plan));
        floe_plan_release(plan);
        s->stmt = NULL;
        s->script = NULL;
    }
    floe_sql_script_free(script);
    return st;
}

/* ----------------------------------------------------- is_complete */

bool floe_sql_is_complete(const char *sql) {
    bool complete = false;
    const char *p = sql;
    while (*p) {
        if (floe_ascii_isspace(*p)) {
            p++;
            continue;
        }
        const char *end;
        bool closed;
        floe_sql_opaque kind = floe_sql_skip_opaque(sql, p, &end, &closed);
        if (kind != FLOE_SQL_OPAQUE_NONE) {
            if (!closed) return false;
            if (kind == FLOE_SQL_OPAQUE_QUOTED) complete = false; /* a comment after `;` leaves it complete */
            p = end;
            continue;
        }
        complete = *p == ';';
        p++;
    }
    return complete;
}
