/*
 * slt_runner.c — runs sqllogictest files (the .slt files in tests/sql) against floe.
 *
 * usage: slt_runner [--testdata DIR] [--verbose] [--repeat N] FILE.slt...
 * (--repeat: run each file N times, each on a fresh warehouse — for an
 * error path that failed only now and then)
 *
 * Each file gets a fresh session on a new warehouse in its own temporary
 * directory (removed afterwards).  Records are separated by blank lines:
 *
 *   statement ok                      the SQL must succeed
 *   statement count N                 the SQL must succeed and its tag's row
 *                                     count ("DELETE 3", "UPDATE 0") be N
 *   statement error [substring]       the SQL must fail; its message must
 *                                     contain the substring (given on the
 *                                     header line or on the lines after a
 *                                     "----" line)
 *   query <types> [nosort|rowsort|valuesort] [label]
 *   SELECT ...
 *   ----
 *   expected rows, values separated by tabs (or one value per line)
 *
 * Types, one letter per column: I integer, R float (printed with three
 * decimals), T text, B boolean ("true"/"false").  NULL prints as "NULL",
 * an empty string as "(empty)".  rowsort sorts the rows (both sides) by
 * their text before comparing, valuesort the single values.
 *
 * Also: "# comments", "hash-threshold N" (ignored: results are never
 * hashed), "halt" (stop the file), "skipif floe" / "onlyif <engine>"
 * before a record (any other engine's "skipif", e.g. "skipif postgresql",
 * runs the record here), "require testdata" (the rest of the file needs the
 * shared test data: skip when it is missing, fail under CI=true; any other
 * "require" skips the file), and ${TESTDATA} / ${TMPDIR} (also
 * __TEST_DIR__) replaced in SQL and expected text.
 *
 * Expected rows are PostgreSQL 15's.  A file whose header comment has the
 * line "# expected: postgresql 15" is also re-run against PostgreSQL by
 * tests/tools/slt_postgres.py (ctest script.slt_vs_postgres), which parses
 * and renders exactly as this runner does; records floe alone can run
 * (floe's settings, EXPLAIN, floe-only functions) go under
 * "skipif postgresql" with a comment saying why.
 *
 * Exit status: 0 when every record of every file passed, 1 on any failure,
 * 77 when every file was skipped (ctest's SKIP_RETURN_CODE).
 */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "floe/session.h"

/* ---------------------------------------------------------------- helpers */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("slt_runner: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* A growable array of owned strings. */
typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;

static void strlist_push(strlist *l, char *owned) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        char **nv = realloc(l->v, l->cap * sizeof *nv);
        if (!nv) {
            fputs("slt_runner: out of memory\n", stderr);
            exit(2);
        }
        l->v = nv;
    }
    l->v[l->n++] = owned;
}

static void strlist_free(strlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strlist_sort(strlist *l) {
    if (l->n > 1) qsort(l->v, l->n, sizeof(char *), cmp_str);
}

static bool is_blank(const char *s) {
    for (; *s; s++)
        if (*s != ' ' && *s != '\t') return false;
    return true;
}

/* Replace every `from` in `s` with `to`; returns a new string. */
static char *replace_all(const char *s, const char *from, const char *to) {
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = strstr(s, from); p; p = strstr(p + fl, from)) n++;
    char *out = xmalloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1);
    char *o = out;
    for (const char *p; (p = strstr(s, from)); s = p + fl) {
        memcpy(o, s, (size_t)(p - s));
        o += p - s;
        memcpy(o, to, tl);
        o += tl;
    }
    strcpy(o, s);
    return out;
}

/* ---------------------------------------------------------------- results */

/* Rows of a query, rendered per the type letters. */
typedef struct result {
    const char *types;  /* the record's letters */
    int32_t ncols;      /* columns of the (last) result set; -1 before begin */
    strlist values;     /* row-major, ncols per row */
} result;

/* The text of value i of `a` for type letter `t`. */
static floe_status render(const floe_array *a, int64_t i, char t, floe_buf *out) {
    if (floe_array_is_null(a, i)) return floe_buf_append_str(out, "NULL");
    const floe_type *ty = a->type;
    double d = 0;
    bool numeric = true;
    switch (ty->id) {
    case FLOE_TYPE_BOOL:
        return floe_buf_append_str(out, floe_array_get_bool(a, i) ? "true" : "false");
    case FLOE_TYPE_INT32: d = floe_array_get_int32(a, i); break;
    case FLOE_TYPE_INT64: d = (double)floe_array_get_int64(a, i); break;
    case FLOE_TYPE_FLOAT32: d = floe_array_get_float(a, i); break;
    case FLOE_TYPE_FLOAT64: d = floe_array_get_double(a, i); break;
    case FLOE_TYPE_DECIMAL128: {
        floe_buf tmp = FLOE_BUF_INIT;
        floe_status st = floe_format_value(a, i, &tmp);
        if (!st) d = strtod(floe_buf_cstr(&tmp), NULL);
        floe_buf_free(&tmp);
        FLOE_TRY(st);
        break;
    }
    case FLOE_TYPE_STRING:
        if (floe_array_get_str(a, i).len == 0) return floe_buf_append_str(out, "(empty)");
        numeric = false;
        break;
    default: numeric = false; break;
    }
    if (numeric && t == 'R') {
        if (d != d) return floe_buf_append_str(out, "NaN");
        if (d > 1e308 * 10) return floe_buf_append_str(out, "inf");
        if (d < -1e308 * 10) return floe_buf_append_str(out, "-inf");
        return floe_buf_printf(out, "%.3f", d);
    }
    if (numeric && t == 'I' && (ty->id == FLOE_TYPE_FLOAT32 || ty->id == FLOE_TYPE_FLOAT64 ||
                                ty->id == FLOE_TYPE_DECIMAL128)) {
        if (d != d || d > 9.2e18 || d < -9.2e18) return floe_format_value(a, i, out);
        return floe_buf_printf(out, "%lld", (long long)d); /* truncated, as sqllogictest does */
    }
    return floe_format_value(a, i, out);
}

static floe_status on_begin(void *arg, const floe_schema *schema) {
    result *r = arg;
    r->ncols = floe_schema_num_fields(schema);
    return NULL;
}

static floe_status on_batch(void *arg, const floe_batch *b) {
    result *r = arg;
    floe_buf cell = FLOE_BUF_INIT;
    floe_status st = NULL;
    int32_t nt = (int32_t)strlen(r->types);
    for (int64_t row = 0; row < b->num_rows && !st; row++) {
        for (int32_t c = 0; c < b->num_columns && !st; c++) {
            floe_buf_clear(&cell);
            st = render(b->columns[c], row, c < nt ? r->types[c] : 'T', &cell);
            if (!st) strlist_push(&r->values, xstrdup(floe_buf_cstr(&cell)));
        }
    }
    floe_buf_free(&cell);
    return st;
}

/* ------------------------------------------------------------------ files */

typedef struct runner {
    const char *testdata; /* NULL when absent */
    bool verbose;
} runner;

typedef enum { FILE_PASS, FILE_FAIL, FILE_SKIP } file_result;

typedef struct slt_file {
    const runner *rn;
    const char *path;
    char tmpdir[4096];
    floe_session *session;
    strlist lines;
    size_t at;            /* next line to read */
    int failures;
    int records;
} slt_file;

/* Substitute ${TESTDATA}, ${TMPDIR} and __TEST_DIR__. */
static char *substitute(const slt_file *f, const char *s) {
    char *a = replace_all(s, "${TESTDATA}", f->rn->testdata ? f->rn->testdata : "/nonexistent-testdata");
    char *b = replace_all(a, "${TMPDIR}", f->tmpdir);
    char *c = replace_all(b, "__TEST_DIR__", f->tmpdir);
    free(a);
    free(b);
    return c;
}

static void fail_at(slt_file *f, size_t line, const char *sql, const char *fmt, ...) FLOE_PRINTF(4, 5);
static void fail_at(slt_file *f, size_t line, const char *sql, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%zu: ", f->path, line);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  SQL: %s\n", sql);
    f->failures++;
}

/* Lines from f->at up to a blank line, "----" or the end, joined by
 * newlines; *dashes tells whether a "----" line ended them (it is then
 * consumed). */
static char *read_block(slt_file *f, bool *dashes) {
    floe_buf b = FLOE_BUF_INIT;
    *dashes = false;
    while (f->at < f->lines.n) {
        const char *l = f->lines.v[f->at];
        if (is_blank(l)) break;
        f->at++;
        if (!strcmp(l, "----")) {
            *dashes = true;
            break;
        }
        if (b.len && floe_buf_append_byte(&b, '\n')) exit(2);
        if (floe_buf_append_str(&b, l)) exit(2);
    }
    char *s = xstrdup(floe_buf_cstr(&b));
    floe_buf_free(&b);
    return s;
}

/* Lines after "----" up to a blank line or the end. */
static void read_expected(slt_file *f, strlist *out) {
    while (f->at < f->lines.n && !is_blank(f->lines.v[f->at]))
        strlist_push(out, substitute(f, f->lines.v[f->at++]));
}

/* The row count of the last tag a statement gave. */
typedef struct tag_seen {
    bool seen;
    int64_t rows;
} tag_seen;

static floe_status on_tag(void *arg, const char *tag, int64_t rows) {
    (void)tag;
    tag_seen *t = arg;
    t->seen = true;
    t->rows = rows;
    return NULL;
}

static void run_statement(slt_file *f, size_t line, char **tok, int ntok) {
    bool dashes;
    char *raw = read_block(f, &dashes);
    char *sql = substitute(f, raw);
    free(raw);
    strlist msg = {0};
    if (dashes) read_expected(f, &msg);
    bool want_error = ntok >= 2 && !strcmp(tok[1], "error");
    bool want_count = ntok == 3 && !strcmp(tok[1], "count");
    if (ntok < 2 || (strcmp(tok[1], "ok") && !want_error && !want_count)) {
        fail_at(f, line, sql, "bad statement header (statement ok | statement count N | statement error [text])");
        goto done;
    }
    /* The expected message: rest of the header line, else the lines
     * after ----. */
    floe_buf want = FLOE_BUF_INIT;
    for (int k = 2; !want_count && k < ntok; k++)
        if ((k > 2 && floe_buf_append_byte(&want, ' ')) || floe_buf_append_str(&want, tok[k])) exit(2);
    for (size_t k = 0; !want.len && k < msg.n; k++)
        if ((k && floe_buf_append_byte(&want, '\n')) || floe_buf_append_str(&want, msg.v[k])) exit(2);
    char *w = substitute(f, floe_buf_cstr(&want));
    floe_buf_free(&want);
    tag_seen tag = {false, 0};
    floe_result_sink sink = {0};
    sink.arg = &tag;
    sink.end = on_tag;
    floe_status st = floe_session_execute(f->session, sql, &sink);
    if (want_error && !st) fail_at(f, line, sql, "statement succeeded; expected an error%s%s%s",
                                   *w ? " containing '" : "", w, *w ? "'" : "");
    else if (want_error && *w && !strstr(floe_status_message(st), w))
        fail_at(f, line, sql, "error message lacks '%s': %s", w, floe_status_message(st));
    else if (!want_error && st)
        fail_at(f, line, sql, "statement failed: %s", floe_status_message(st));
    else if (want_count && !tag.seen)
        fail_at(f, line, sql, "statement gave no row count; expected %s", tok[2]);
    else if (want_count && tag.rows != strtoll(tok[2], NULL, 10))
        fail_at(f, line, sql, "statement changed %lld rows; expected %s", (long long)tag.rows, tok[2]);
    floe_status_free(st);
    free(w);
done:
    strlist_free(&msg);
    free(sql);
}

static void print_values(const char *title, const strlist *rows) {
    fprintf(stderr, "  %s (%zu lines):\n", title, rows->n);
    for (size_t i = 0; i < rows->n && i < 50; i++) fprintf(stderr, "    %s\n", rows->v[i]);
    if (rows->n > 50) fprintf(stderr, "    ...\n");
}

/* Split expected lines into single values: rows of ncols tab-separated
 * values, or (when the line count says so) one value per line. */
static bool expected_values(const strlist *lines, int32_t ncols, size_t actual_rows, strlist *out) {
    bool tabbed = true;
    for (size_t i = 0; i < lines->n && tabbed; i++) {
        int32_t n = 1;
        for (const char *p = lines->v[i]; *p; p++) n += *p == '\t';
        tabbed = n == ncols;
    }
    if (!tabbed && !(ncols > 1 && lines->n == actual_rows * (size_t)ncols)) return false;
    if (!tabbed) {
        for (size_t i = 0; i < lines->n; i++) strlist_push(out, xstrdup(lines->v[i]));
        return true;
    }
    for (size_t i = 0; i < lines->n; i++) {
        const char *s = lines->v[i];
        for (;;) {
            const char *tab = strchr(s, '\t');
            size_t n = tab ? (size_t)(tab - s) : strlen(s);
            char *v = xmalloc(n + 1);
            memcpy(v, s, n);
            v[n] = 0;
            strlist_push(out, v);
            if (!tab) break;
            s = tab + 1;
        }
    }
    return true;
}

/* Values regrouped as tab-joined rows of ncols. */
static void join_rows(const strlist *values, int32_t ncols, strlist *rows) {
    for (size_t i = 0; ncols > 0 && i + (size_t)ncols <= values->n; i += (size_t)ncols) {
        floe_buf b = FLOE_BUF_INIT;
        for (int32_t c = 0; c < ncols; c++)
            if ((c && floe_buf_append_byte(&b, '\t')) || floe_buf_append_str(&b, values->v[i + (size_t)c]))
                exit(2);
        strlist_push(rows, xstrdup(floe_buf_cstr(&b)));
        floe_buf_free(&b);
    }
}

static void run_query(slt_file *f, size_t line, char **tok, int ntok) {
    bool dashes;
    char *raw = read_block(f, &dashes);
    char *sql = substitute(f, raw);
    free(raw);
    strlist exp_lines = {0}, exp_vals = {0}, got_rows = {0}, exp_rows = {0};
    result r = {0};
    r.ncols = -1;
    if (dashes) read_expected(f, &exp_lines);
    const char *types = ntok >= 2 ? tok[1] : "";
    const char *mode = ntok >= 3 ? tok[2] : "nosort";
    bool bad_types = !*types;
    for (const char *p = types; *p; p++) bad_types |= !strchr("IRTB", *p);
    if (bad_types) {
        fail_at(f, line, sql, "bad query header: types must be letters I, R, T, B");
        goto done;
    }
    if (strcmp(mode, "nosort") && strcmp(mode, "rowsort") && strcmp(mode, "valuesort")) {
        fail_at(f, line, sql, "unknown sort mode '%s' (nosort, rowsort, valuesort)", mode);
        goto done;
    }
    r.types = types;
    floe_result_sink sink = {0};
    sink.arg = &r;
    sink.begin = on_begin;
    sink.batch = on_batch;
    floe_status st = floe_session_execute(f->session, sql, &sink);
    if (st) {
        fail_at(f, line, sql, "query failed: %s", floe_status_message(st));
        floe_status_free(st);
        goto done;
    }
    int32_t ncols = (int32_t)strlen(types);
    if (r.ncols != ncols) {
        fail_at(f, line, sql, "query returned %d columns; the header's types '%s' say %d", r.ncols, types, ncols);
        goto done;
    }
    size_t nrows = r.values.n / (size_t)ncols;
    if (!expected_values(&exp_lines, ncols, nrows, &exp_vals)) {
        fail_at(f, line, sql, "expected rows do not have %d tab-separated values each", ncols);
        print_values("expected", &exp_lines);
        goto done;
    }
    if (!strcmp(mode, "valuesort")) {
        strlist_sort(&r.values);
        strlist_sort(&exp_vals);
        join_rows(&r.values, 1, &got_rows);
        join_rows(&exp_vals, 1, &exp_rows);
    } else {
        join_rows(&r.values, ncols, &got_rows);
        join_rows(&exp_vals, ncols, &exp_rows);
        if (!strcmp(mode, "rowsort")) {
            strlist_sort(&got_rows);
            strlist_sort(&exp_rows);
        }
    }
    bool same = got_rows.n == exp_rows.n;
    size_t first = 0;
    for (; same && first < got_rows.n; first++)
        if (strcmp(got_rows.v[first], exp_rows.v[first])) {
            same = false;
            break;
        }
    if (!same) {
        if (got_rows.n != exp_rows.n)
            fail_at(f, line, sql, "wrong result: %zu rows, expected %zu", got_rows.n, exp_rows.n);
        else
            fail_at(f, line, sql, "wrong result: first difference at row %zu", first + 1);
        print_values("expected", &exp_rows);
        print_values("actual", &got_rows);
    }
done:
    strlist_free(&r.values);
    strlist_free(&exp_lines);
    strlist_free(&exp_vals);
    strlist_free(&got_rows);
    strlist_free(&exp_rows);
    free(sql);
}

/* Skip a record (its SQL and expected lines) without running it. */
static void skip_record(slt_file *f) {
    while (f->at < f->lines.n && !is_blank(f->lines.v[f->at])) f->at++;
}

/* Split a header line into at most `max` tokens (modifies `line`). */
static int tokenize(char *line, char **tok, int max) {
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save)) tok[n++] = t;
    return n;
}

static file_result run_records(slt_file *f) {
    while (f->at < f->lines.n) {
        size_t line = f->at + 1;
        char *l = f->lines.v[f->at];
        if (is_blank(l) || l[0] == '#') {
            f->at++;
            continue;
        }
        char *copy = xstrdup(l);
        char *tok[64];
        int ntok = tokenize(copy, tok, 64);
        f->at++;
        bool skip = false;
        /* Conditions apply to the record that follows them. */
        while (ntok >= 2 && (!strcmp(tok[0], "skipif") || !strcmp(tok[0], "onlyif"))) {
            bool floe = !strcmp(tok[1], "floe");
            if (!strcmp(tok[0], "skipif") ? floe : !floe) skip = true;
            free(copy);
            if (f->at >= f->lines.n) return FILE_PASS;
            line = f->at + 1;
            copy = xstrdup(f->lines.v[f->at++]);
            ntok = tokenize(copy, tok, 64);
        }
        file_result res = FILE_PASS;
        bool stop = false;
        if (ntok == 0) {
        } else if (skip) {
            skip_record(f);
        } else if (!strcmp(tok[0], "statement")) {
            if (f->rn->verbose) printf("%s:%zu: %s\n", f->path, line, l);
            f->records++;
            run_statement(f, line, tok, ntok);
        } else if (!strcmp(tok[0], "query")) {
            if (f->rn->verbose) printf("%s:%zu: %s\n", f->path, line, l);
            f->records++;
            run_query(f, line, tok, ntok);
        } else if (!strcmp(tok[0], "hash-threshold")) {
        } else if (!strcmp(tok[0], "halt")) {
            stop = true;
        } else if (!strcmp(tok[0], "require")) {
            if (ntok >= 2 && !strcmp(tok[1], "testdata")) {
                if (!f->rn->testdata) {
                    const char *ci = getenv("CI");
                    if (ci && !strcmp(ci, "true")) {
                        fprintf(stderr, "FAIL %s:%zu: shared test data missing under CI=true\n", f->path, line);
                        f->failures++;
                        res = FILE_FAIL;
                    } else {
                        printf("SKIP: %s: shared test data not found (set FLOE_TESTDATA)\n", f->path);
                        res = FILE_SKIP;
                    }
                    stop = true;
                }
            } else {
                printf("SKIP: %s:%zu: require %s is not supported\n", f->path, line, ntok >= 2 ? tok[1] : "");
                res = FILE_SKIP;
                stop = true;
            }
        } else {
            f->records++;
            fprintf(stderr, "FAIL %s:%zu: unknown record '%s'\n", f->path, line, tok[0]);
            f->failures++;
            skip_record(f);
        }
        free(copy);
        if (stop) return f->failures ? FILE_FAIL : res;
    }
    return f->failures ? FILE_FAIL : FILE_PASS;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static bool read_lines(const char *path, strlist *out) {
    FILE *fp = fopen(path, "r");
    if (!fp) return false;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        strlist_push(out, xstrdup(line));
    }
    free(line);
    fclose(fp);
    return true;
}

static file_result run_file(const runner *rn, const char *path) {
    slt_file f;
    memset(&f, 0, sizeof f);
    f.rn = rn;
    f.path = path;
    if (!read_lines(path, &f.lines)) {
        fprintf(stderr, "FAIL %s: cannot read: %s\n", path, strerror(errno));
        return FILE_FAIL;
    }
    const char *base = getenv("TMPDIR");
    snprintf(f.tmpdir, sizeof f.tmpdir, "%s/floe-slt-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(f.tmpdir)) {
        fprintf(stderr, "FAIL %s: cannot make a temporary directory: %s\n", path, strerror(errno));
        strlist_free(&f.lines);
        return FILE_FAIL;
    }
    char warehouse[4200];
    snprintf(warehouse, sizeof warehouse, "%s/warehouse", f.tmpdir);
    floe_status st = floe_session_open(warehouse, &f.session);
    file_result res;
    if (st) {
        fprintf(stderr, "FAIL %s: opening a session: %s\n", path, floe_status_message(st));
        floe_status_free(st);
        res = FILE_FAIL;
    } else {
        res = run_records(&f);
        floe_session_close(f.session);
    }
    if (res == FILE_PASS) printf("PASS %s (%d records)\n", path, f.records);
    else if (res == FILE_FAIL) printf("FAIL %s (%d of %d records failed)\n", path, f.failures, f.records);
    nftw(f.tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    strlist_free(&f.lines);
    return res;
}

static const char *find_testdata(const char *arg) {
    const char *cands[3] = {arg, getenv("FLOE_TESTDATA"), getenv("FLOE_TESTDATA_DEFAULT")};
    for (int i = 0; i < 3; i++) {
        struct stat sb;
        if (cands[i] && *cands[i] && stat(cands[i], &sb) == 0 && S_ISDIR(sb.st_mode)) return cands[i];
    }
    return NULL;
}

int main(int argc, char **argv) {
    floe_memory_tune_process();
    runner rn = {0};
    const char *td = NULL;
    int first = 1;
    long repeat = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--testdata") && first + 1 < argc) td = argv[++first];
        else if (!strcmp(argv[first], "--verbose")) rn.verbose = true;
        else if (!strcmp(argv[first], "--repeat") && first + 1 < argc) repeat = strtol(argv[++first], NULL, 10);
        else break;
    }
    if (first >= argc || repeat < 1) {
        fputs("usage: slt_runner [--testdata DIR] [--verbose] [--repeat N] FILE.slt...\n", stderr);
        return 2;
    }
    char *abs_td = NULL;
    td = find_testdata(td);
    if (td) abs_td = realpath(td, NULL);
    rn.testdata = abs_td;
    int failed = 0, skipped = 0, n = argc - first;
    for (int i = first; i < argc; i++)
        for (long k = 0; k < repeat; k++) {
            file_result r = run_file(&rn, argv[i]);
            failed += r == FILE_FAIL;
            skipped += r == FILE_SKIP;
            if (r != FILE_PASS) break; /* the first failure (or a skip) is the answer */
        }
    free(abs_td);
    if (repeat > 1) printf("%s %ld runs of each file\n", failed ? "FAILED within" : "PASSED", repeat);
    if (failed) return 1;
    return skipped == n ? 77 : 0;
}
