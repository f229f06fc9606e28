/*
 * cmd_tpch.c — `floe tpch generate`: the eight TPC-H tables at a scale
 * factor, from the TpchGen node (floe/exec_tpch.h) through SQL.
 *
 *   floe tpch generate --sf N [--schema tpch] [--warehouse DIR] [--replace]
 *                      [--parquet DIR] [--tables a,b,...]
 *
 * Iceberg mode (the default) runs, per table,
 *   CREATE TABLE <schema>.<table> AS SELECT * FROM tpch_gen('<table>', N)
 * in a session on the warehouse, so the rows go through the parallel
 * write path; --replace drops an existing table first.  With --parquet DIR
 * it runs COPY (SELECT * FROM tpch_gen(...)) TO 'DIR/<table>.parquet'
 * instead, in a session on a throw-away warehouse (unless --warehouse).
 *
 * Progress goes to stderr: on a terminal one line per table redrawn with
 * the elapsed time (and a bar when the session reports progress), else one
 * line per finished table with its row count and time.
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/str.h"
#include "cli/commands.h"
#include "floe/exec_tpch.h"
#include "floe/memory.h"
#include "floe/session.h"

#define TPCH_USAGE                                                                           \
    "usage: floe tpch generate --sf N [--schema NAME] [--warehouse DIR] [--replace]\n"      \
    "                          [--parquet DIR] [--tables a,b,...]\n"                           \
    "  --sf N          scale factor (1 = 6 million lineitem rows)\n"                           \
    "  --schema NAME   Iceberg namespace of the tables (default tpch)\n"                      \
    "  --warehouse DIR catalog and table directory (default $FLOE_WAREHOUSE, else\n"         \
    "                  ./warehouse)\n"                                                         \
    "  --replace       drop existing tables of the same names first\n"                        \
    "  --parquet DIR   write DIR/<table>.parquet files instead of Iceberg tables\n"           \
    "  --tables LIST   only these tables (default: all eight)"

typedef struct tpch_args {
    bool help; /* --help: print the usage */
    double sf;
    const char *sf_text;
    const char *schema;
    const char *warehouse;
    const char *parquet;
    const char *tables;
    bool replace;
} tpch_args;

/* ---- progress on stderr ------------------------------------------------- */

typedef struct progress_line {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool tty, running, stop;
    const char *table;
    struct timespec started;
    int64_t done, total;  /* from the session's progress reports */
    int64_t rows;         /* from the statement's end */
} progress_line;

static double elapsed_s(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Caller holds mu. */
static void draw(progress_line *p) {
    double secs = elapsed_s(&p->started);
    if (p->total > 0) {
        double f = (double)p->done / (double)p->total;
        if (f > 1) f = 1;
        char bar[31];
        int32_t w = (int32_t)(f * 30);
        for (int32_t i = 0; i < 30; i++) bar[i] = i < w ? '#' : '.';
        bar[30] = 0;
        fprintf(stderr, "\r  %-9s [%s] %3d%%  %6.1f s\033[K", p->table, bar, (int)(f * 100), secs);
    } else {
        fprintf(stderr, "\r  %-9s %6.1f s\033[K", p->table, secs);
    }
    fflush(stderr);
}

static void *ticker(void *arg) {
    progress_line *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &until);
        if (!p->stop) draw(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void progress_begin(progress_line *p, const char *table) {
    pthread_mutex_lock(&p->mu);
    p->table = table;
    p->done = p->total = 0;
    p->rows = -1;
    p->stop = false;
    clock_gettime(CLOCK_MONOTONIC, &p->started);
    if (p->tty) draw(p);
    pthread_mutex_unlock(&p->mu);
    p->running = p->tty && pthread_create(&p->thread, NULL, ticker, p) == 0;
}

static void progress_end(progress_line *p, bool ok) {
    if (p->running) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->thread, NULL);
        p->running = false;
    }
    double secs = elapsed_s(&p->started);
    if (p->tty) fputs("\r\033[K", stderr);
    if (ok) fprintf(stderr, "  %-9s %12lld rows  %7.2f s\n", p->table, (long long)p->rows, secs);
    else fprintf(stderr, "  %-9s failed after %.2f s\n", p->table, secs);
    fflush(stderr);
}

static void on_progress(void *arg, int64_t done, int64_t total) {
    progress_line *p = arg;
    pthread_mutex_lock(&p->mu);
    p->done = done;
    p->total = total;
    pthread_mutex_unlock(&p->mu);
}

static floe_status on_end(void *arg, const char *tag, int64_t rows) {
    (void)tag;
    progress_line *p = arg;
    pthread_mutex_lock(&p->mu);
    p->rows = rows;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- arguments -------------------------------------------------------------- */

static bool is_identifier(const char *s) {
    if (!s || !*s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static floe_status parse_args(int argc, char **argv, tpch_args *a) {
    memset(a, 0, sizeof *a);
    a->schema = "tpch";
    a->help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (a->help) return NULL;
    if (argc < 2 || strcmp(argv[1], "generate") != 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s", TPCH_USAGE);
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(s, "--sf") && has_next) a->sf_text = argv[++i];
        else if (!strcmp(s, "--schema") && has_next) a->schema = argv[++i];
        else if (!strcmp(s, "--warehouse") && has_next) a->warehouse = argv[++i];
        else if (!strcmp(s, "--parquet") && has_next) a->parquet = argv[++i];
        else if (!strcmp(s, "--tables") && has_next) a->tables = argv[++i];
        else if (!strcmp(s, "--replace")) a->replace = true;
        else if (!strcmp(s, "--help") || !strcmp(s, "-h")) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s", TPCH_USAGE);
        else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unexpected argument '%s'\n%s", s, TPCH_USAGE);
    }
    if (!a->sf_text) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--sf is required\n%s", TPCH_USAGE);
    FLOE_TRY(floe_parse_double(floe_str_c(a->sf_text), "--sf", &a->sf));
    if (!(a->sf > 0 && a->sf <= 100000))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--sf %s is out of range (0, 100000]", a->sf_text);
    if (!is_identifier(a->schema))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--schema '%s' is not a plain identifier", a->schema);
    return NULL;
}

/* Is `t` in the comma list (NULL: every table)? */
static bool wanted(const char *list, const char *t) {
    if (!list) return true;
    size_t n = strlen(t);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncasecmp(p, t, n) == 0) return true;
        p += l + (e ? 1 : 0);
    }
    return false;
}

/* Every name in --tables must be a TPC-H table. */
static floe_status check_tables(const char *list) {
    if (!list) return NULL;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        bool ok = false;
        for (int i = 0; floe_tpch_tables[i]; i++)
            ok |= strlen(floe_tpch_tables[i]) == l && strncasecmp(p, floe_tpch_tables[i], l) == 0;
        if (!ok) return floe_error(FLOE_ERR_NOT_FOUND, "--tables: '%.*s' is not a TPC-H table", (int)l, p);
        p += l + (e ? 1 : 0);
    }
    return NULL;
}

/* The body of a SQL string literal holding `s` (quotes doubled). */
static floe_status put_sql_string(floe_buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '\'') FLOE_TRY(floe_buf_append_byte(b, '\''));
        FLOE_TRY(floe_buf_append_byte(b, (uint8_t)*s));
    }
    return NULL;
}

/* ---- a throw-away warehouse for Parquet mode -------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* mkdir -p for a local directory (a URI such as s3://... is left alone). */
static floe_status make_dirs(const char *dir) {
    if (strstr(dir, "://")) return NULL;
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "--parquet: path too long");
    for (char *p = path + 1;; p++) {
        bool end = *p == 0;
        if (*p == '/' || end) {
            *p = 0;
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return floe_error(FLOE_ERR_IO, "creating directory '%s': %s", path, strerror(errno));
            if (end) break;
            *p = '/';
        }
    }
    return NULL;
}

/* ---- the command ------------------------------------------------------------ */

static floe_status run_table(floe_session *s, const tpch_args *a, const char *t, progress_line *pl) {
    floe_buf sql;
    floe_buf_init(&sql);
    char sf[64];
    snprintf(sf, sizeof sf, "%.17g", a->sf);
    floe_status st = NULL;
    if (a->parquet) {
        st = floe_buf_printf(&sql, "COPY (SELECT * FROM tpch_gen('%s', %s)) TO '", t, sf);
        if (!st) st = put_sql_string(&sql, a->parquet);
        if (!st) st = floe_buf_printf(&sql, "/%s.parquet'", t);
    } else {
        if (a->replace) st = floe_buf_printf(&sql, "DROP TABLE IF EXISTS %s.%s; ", a->schema, t);
        if (!st)
            st = floe_buf_printf(&sql, "CREATE TABLE %s.%s AS SELECT * FROM tpch_gen('%s', %s)", a->schema, t, t, sf);
    }
    if (st) {
        floe_buf_free(&sql);
        return st;
    }
    floe_result_sink sink = {pl, NULL, NULL, on_end, on_progress};
    progress_begin(pl, t);
    st = floe_session_execute(s, floe_buf_cstr(&sql), &sink);
    progress_end(pl, st == NULL);
    floe_buf_free(&sql);
    if (st && floe_status_code(st) == FLOE_ERR_ALREADY_EXISTS && !a->parquet)
        return floe_status_wrap(st, "generating TPC-H table %s (--replace drops it first)", t);
    return st ? floe_status_wrap(st, "generating TPC-H table %s", t) : NULL;
}

floe_status floe_cli_tpch(int argc, char **argv) {
    tpch_args a;
    FLOE_TRY(parse_args(argc, argv, &a));
    if (a.help) {
        puts(TPCH_USAGE);
        return NULL;
    }
    FLOE_TRY(check_tables(a.tables));
    if (a.parquet) FLOE_TRY(make_dirs(a.parquet));
    char tmp_wh[4096] = "";
    const char *warehouse = a.warehouse;
    if (a.parquet && !warehouse) {
        /* COPY needs a session, the session a catalog: keep it out of the
         * way and remove it afterwards. */
        const char *td = getenv("TMPDIR");
        snprintf(tmp_wh, sizeof tmp_wh, "%s/floe-tpch.XXXXXX", td && *td ? td : "/tmp");
        if (!mkdtemp(tmp_wh)) return floe_error(FLOE_ERR_IO, "creating a temporary warehouse: %s", strerror(errno));
        warehouse = tmp_wh;
    }
    floe_session *s = NULL;
    floe_status st = floe_session_open(warehouse, &s);
    if (!st && !a.parquet) {
        floe_buf sql;
        floe_buf_init(&sql);
        st = floe_buf_printf(&sql, "CREATE SCHEMA IF NOT EXISTS %s", a.schema);
        if (!st) st = floe_session_execute(s, floe_buf_cstr(&sql), NULL);
        floe_buf_free(&sql);
    }
    progress_line pl;
    memset(&pl, 0, sizeof pl);
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);
    pl.tty = isatty(STDERR_FILENO);
    if (!st)
        fprintf(stderr, "TPC-H SF %s -> %s%s\n", a.sf_text, a.parquet ? a.parquet : a.schema,
                a.parquet ? " (Parquet)" : " (Iceberg)");
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; floe_tpch_tables[i] && !st; i++)
        if (wanted(a.tables, floe_tpch_tables[i])) st = run_table(s, &a, floe_tpch_tables[i], &pl);
    if (!st) fprintf(stderr, "  total %29.2f s\n", elapsed_s(&t0));
    pthread_cond_destroy(&pl.cv);
    pthread_mutex_destroy(&pl.mu);
    floe_session_close(s);
    if (tmp_wh[0]) nftw(tmp_wh, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return st;
}
