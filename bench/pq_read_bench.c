/*
 * pq_read_bench.c — time floe's Parquet reader and writer on one file.
 *
 *   pq_read_bench read FILE THREADS RUNS
 *       Opens FILE once and decodes every column of every row group, the
 *       row groups spread over a pool of THREADS workers (one reader per
 *       row group, sharing the opened file).  One warm-up, then RUNS timed
 *       passes.
 *   pq_read_bench write FILE OUT RUNS
 *       Reads all of FILE into memory batches (untimed), then writes them
 *       to OUT with floe's writer (zstd, default options) RUNS times after
 *       one warm-up, timing only the writing.
 *
 *   pq_read_bench skip FILE COLUMN LO HI RUNS
 *       Reads every column of FILE on one thread twice per run: with the
 *       page-skipping predicates COLUMN >= LO AND COLUMN < HI (an integer
 *       column), and without; prints one JSON line with the rows, bytes
 *       fetched and median seconds of each.
 *
 * Prints one JSON line: {"engine":"floe","mode":...,"threads":N,"rows":R,
 * "runs":[seconds...],"median":s}.  Used by bench/parquet_read.sh and
 * bench/parquet_write.sh; built only as a bench target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/threadpool.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_result(const char *mode, int threads, int64_t rows, const double *runs, int n) {
    double sorted[64];
    memcpy(sorted, runs, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    printf("{\"engine\":\"floe\",\"mode\":\"%s\",\"threads\":%d,\"rows\":%lld,\"runs\":[", mode,
           threads, (long long)rows);
    for (int i = 0; i < n; i++) printf("%s%.4f", i ? "," : "", runs[i]);
    printf("],\"median\":%.4f}\n", sorted[n / 2]);
}

static int fail(floe_status st) {
    fprintf(stderr, "pq_read_bench: %s\n", floe_status_message(st));
    floe_status_free(st);
    return 1;
}

/* ---- read ---------------------------------------------------------------- */

typedef struct read_ctx {
    floe_pq_file *file;
    _Atomic int64_t rows;
} read_ctx;

/* Decode row groups [begin, end): every column, every batch. */
static floe_status read_groups(void *arg, size_t begin, size_t end, const floe_cancel *cancel) {
    read_ctx *c = arg;
    for (size_t g = begin; g < end; g++) {
        FLOE_TRY(floe_cancel_check(cancel, "pq_read_bench"));
        int rg = (int)g;
        floe_pq_read_options o = {0};
        o.row_groups = &rg;
        o.num_row_groups = 1;
        floe_pq_reader *r;
        FLOE_TRY(floe_pq_reader_open(c->file, &o, &r));
        floe_status st = NULL;
        for (;;) {
            floe_batch *b;
            st = floe_pq_reader_next(r, &b);
            if (st || !b) break;
            c->rows += b->num_rows;
            floe_batch_release(b);
        }
        floe_pq_reader_close(r);
        if (st) return st;
    }
    return NULL;
}

static int bench_read(const char *path, int threads, int runs) {
    floe_pq_file *f;
    floe_status st = floe_pq_file_open_path(path, &f);
    if (st) return fail(st);
    /* A thread waiting on a task group runs the group's tasks too, so
     * THREADS threads are THREADS-1 pool workers plus this one; one thread
     * reads every row group here, with no pool. */
    floe_threadpool *pool = NULL;
    if (threads > 1) st = floe_threadpool_create((size_t)threads - 1, &pool);
    if (st) {
        floe_pq_file_close(f);
        return fail(st);
    }
    read_ctx c = {.file = f};
    double times[64];
    int64_t rows = 0;
    for (int i = -1; i < runs && !st; i++) {
        c.rows = 0;
        double t0 = now_seconds();
        size_t ngroups = (size_t)f->meta->num_row_groups;
        st = pool ? floe_parallel_for(pool, ngroups, 1, read_groups, &c, NULL)
                  : read_groups(&c, 0, ngroups, NULL);
        if (i >= 0) times[i] = now_seconds() - t0;
        rows = c.rows;
    }
    if (pool) floe_threadpool_destroy(pool);
    floe_pq_file_close(f);
    if (st) return fail(st);
    print_result("read", threads, rows, times, runs);
    return 0;
}

/* ---- write --------------------------------------------------------------- */

/* One file: the writer owns the output from open on and closes (or, on
 * failure, aborts) it. */
static floe_status write_once(const char *out_path, const floe_schema *schema, floe_batch **batches,
                              size_t n) {
    floe_output *out;
    FLOE_TRY(floe_output_create_local(out_path, 1, &out));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.codec = FLOE_CODEC_ZSTD;
    floe_pq_writer *w;
    FLOE_TRY(floe_pq_writer_open(out, schema, &o, &w));
    floe_status st = NULL;
    for (size_t i = 0; i < n && !st; i++) st = floe_pq_writer_write(w, batches[i]);
    if (st) {
        floe_pq_writer_abort(w);
        return st;
    }
    return floe_pq_writer_close(w, NULL);
}

static int bench_write(const char *path, const char *out_path, int runs) {
    floe_pq_reader *r;
    floe_status st = floe_pq_reader_open_path(path, NULL, &r);
    if (st) return fail(st);
    size_t n = 0, cap = 0;
    floe_batch **batches = NULL;
    int64_t rows = 0;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            floe_batch **nb = realloc(batches, cap * sizeof *nb);
            if (!nb) {
                fprintf(stderr, "pq_read_bench: out of memory\n");
                exit(1);
            }
            batches = nb;
        }
        batches[n++] = b;
        rows += b->num_rows;
    }
    double times[64];
    for (int i = -1; i < runs && !st; i++) {
        double t0 = now_seconds();
        st = write_once(out_path, floe_pq_reader_schema(r), batches, n);
        if (i >= 0) times[i] = now_seconds() - t0;
    }
    for (size_t i = 0; i < n; i++) floe_batch_release(batches[i]);
    free(batches);
    floe_pq_reader_close(r);
    if (st) return fail(st);
    print_result("write", 1, rows, times, runs);
    return 0;
}

/* ---- skip ---------------------------------------------------------------- */

static floe_status read_once(floe_pq_file *f, const floe_pq_read_options *o, int64_t *rows,
                             uint64_t *bytes, double *secs) {
    uint64_t b0 = f->in->bytes_read;
    double t0 = now_seconds();
    floe_pq_reader *r = NULL;
    FLOE_TRY(floe_pq_reader_open(f, o, &r));
    floe_status st = NULL;
    *rows = 0;
    for (;;) {
        floe_batch *b = NULL;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        *rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_pq_reader_close(r);
    *secs = now_seconds() - t0;
    *bytes = f->in->bytes_read - b0;
    return st;
}

static int bench_skip(const char *path, const char *col, int64_t lo, int64_t hi, int runs) {
    floe_pq_file *f = NULL;
    floe_status st = floe_pq_file_open_path(path, &f);
    if (st) return fail(st);
    floe_pq_value v[2] = {{.kind = FLOE_PQ_VAL_INT, .i = lo}, {.kind = FLOE_PQ_VAL_INT, .i = hi}};
    floe_pq_predicate p[2] = {{col, -1, FLOE_PQ_OP_GE, &v[0], 1}, {col, -1, FLOE_PQ_OP_LT, &v[1], 1}};
    floe_pq_read_options with = {0}, without = {0};
    with.predicates = p;
    with.num_predicates = 2;
    double ts[64], tn[64];
    int64_t rs = 0, rn = 0;
    uint64_t bs = 0, bn = 0;
    for (int i = 0; i < runs && !st; i++) {
        st = read_once(f, &with, &rs, &bs, &ts[i]);
        if (!st) st = read_once(f, &without, &rn, &bn, &tn[i]);
    }
    floe_pq_file_close(f);
    if (st) return fail(st);
    qsort(ts, (size_t)runs, sizeof(double), cmp_double);
    qsort(tn, (size_t)runs, sizeof(double), cmp_double);
    printf("{\"engine\":\"floe\",\"mode\":\"skip\",\"predicate\":\"%s in [%lld, %lld)\","
           "\"skip\":{\"rows\":%lld,\"bytes\":%llu,\"median\":%.4f},"
           "\"full\":{\"rows\":%lld,\"bytes\":%llu,\"median\":%.4f}}\n",
           col, (long long)lo, (long long)hi, (long long)rs, (unsigned long long)bs, ts[runs / 2],
           (long long)rn, (unsigned long long)bn, tn[runs / 2]);
    return 0;
}

int main(int argc, char **argv) {
    floe_memory_tune_process();
    if (argc == 5 && !strcmp(argv[1], "read")) {
        int threads = atoi(argv[3]), runs = atoi(argv[4]);
        if (threads < 1 || runs < 1 || runs > 64) goto usage;
        return bench_read(argv[2], threads, runs);
    }
    if (argc == 5 && !strcmp(argv[1], "write")) {
        int runs = atoi(argv[4]);
        if (runs < 1 || runs > 64) goto usage;
        return bench_write(argv[2], argv[3], runs);
    }
    if (argc == 7 && !strcmp(argv[1], "skip")) {
        int runs = atoi(argv[6]);
        if (runs < 1 || runs > 64) goto usage;
        return bench_skip(argv[2], argv[3], atoll(argv[4]), atoll(argv[5]), runs);
    }
usage:
    fprintf(stderr, "usage: pq_read_bench read FILE THREADS RUNS\n"
                    "       pq_read_bench write FILE OUT RUNS\n"
                    "       pq_read_bench skip FILE COLUMN LO HI RUNS\n");
    return 2;
}
