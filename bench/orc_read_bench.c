/*
 * orc_read_bench.c — time floe reading the same rows as ORC and as Parquet.
 *
 *   orc_read_bench FILE.orc OUT.parquet RUNS
 *       Reads every row of FILE.orc and writes it to OUT.parquet with floe's
 *       Parquet writer (untimed; defaults, and the ORC file's codec: ZLIB ->
 *       GZIP (the same deflate), SNAPPY, LZ4 -> LZ4_RAW, NONE, ZSTD).
 *       Then, on one thread, decodes every column of both files to record
 *       batches: one warm-up, RUNS timed passes each.
 *
 *   orc_read_bench skip FILE.orc COLUMN LO HI RUNS
 *       Reads every column of FILE.orc on one thread twice per run: with
 *       the row-group skipping predicates COLUMN >= LO AND COLUMN < HI (an
 *       integer column), and without; prints one JSON line with the rows,
 *       row groups skipped, seeks and the median seconds of each.
 *
 * The first mode prints two JSON lines, {"engine":"floe","format":"orc"|"parquet",
 * "rows":R,"bytes":file size,"runs":[seconds...],"median":s}.  Used by
 * bench/orc_read.sh; built only as a bench target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/orc/reader.h"
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

static void print_result(const char *format, const char *path, int64_t rows, const double *runs, int n) {
    double sorted[64];
    memcpy(sorted, runs, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    struct stat sb;
    long long bytes = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
    printf("{\"engine\":\"floe\",\"format\":\"%s\",\"rows\":%lld,\"bytes\":%lld,\"runs\":[", format,
           (long long)rows, bytes);
    for (int i = 0; i < n; i++) printf("%s%.4f", i ? "," : "", runs[i]);
    printf("],\"median\":%.4f}\n", sorted[n / 2]);
}

static int fail(floe_status st) {
    fprintf(stderr, "orc_read_bench: %s\n", floe_status_message(st));
    floe_status_free(st);
    return 1;
}

static floe_status copy_to_parquet(const char *orc, const char *out_path) {
    floe_orc_reader *r;
    FLOE_TRY(floe_orc_reader_open_path(orc, NULL, &r));
    floe_output *out;
    floe_status st = floe_output_create_local(out_path, 1, &out);
    if (st) {
        floe_orc_reader_close(r);
        return st;
    }
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    /* the ORC file's codec family, so the comparison is of the formats */
    switch (floe_orc_reader_file(r)->ps.compression) {
    case FLOE_ORC_COMP_NONE: o.codec = FLOE_CODEC_NONE; break;
    case FLOE_ORC_COMP_ZLIB: o.codec = FLOE_CODEC_GZIP; break;
    case FLOE_ORC_COMP_SNAPPY: o.codec = FLOE_CODEC_SNAPPY; break;
    case FLOE_ORC_COMP_LZ4: o.codec = FLOE_CODEC_LZ4_RAW; break;
    default: o.codec = FLOE_CODEC_ZSTD; break;
    }
    floe_pq_writer *w = NULL;
    st = floe_pq_writer_open(out, floe_orc_reader_schema(r), &o, &w);
    while (!st) {
        floe_batch *b;
        st = floe_orc_reader_next(r, &b);
        if (st || !b) break;
        st = floe_pq_writer_write(w, b);
        floe_batch_release(b);
    }
    if (w) {
        floe_status cs = floe_pq_writer_close(w, NULL);
        if (!st) st = cs;
        else floe_status_free(cs);
    }
    floe_orc_reader_close(r);
    return st;
}

static floe_status pass_orc(floe_orc_file *f, int64_t *rows) {
    floe_orc_reader *r;
    FLOE_TRY(floe_orc_reader_open(f, NULL, &r));
    floe_status st = NULL;
    *rows = 0;
    for (;;) {
        floe_batch *b;
        st = floe_orc_reader_next(r, &b);
        if (st || !b) break;
        *rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_orc_reader_close(r);
    return st;
}

static floe_status pass_parquet(floe_pq_file *f, int64_t *rows) {
    floe_pq_reader *r;
    FLOE_TRY(floe_pq_reader_open(f, NULL, &r));
    floe_status st = NULL;
    *rows = 0;
    for (;;) {
        floe_batch *b;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        *rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_pq_reader_close(r);
    return st;
}

/* One pass with `column >= lo AND column < hi` (an integer column) as
 * row-group skipping predicates, or none. */
static floe_status pass_skip(floe_orc_file *f, const char *col, int64_t lo, int64_t hi, bool preds,
                             int64_t *rows, floe_orc_skip_stats *ss) {
    floe_orc_value vlo = {.kind = FLOE_ORC_VAL_INT, .i = lo}, vhi = {.kind = FLOE_ORC_VAL_INT, .i = hi};
    floe_orc_predicate p[2] = {{.path = col, .op = FLOE_ORC_OP_GE, .values = &vlo, .num_values = 1},
                               {.path = col, .op = FLOE_ORC_OP_LT, .values = &vhi, .num_values = 1}};
    floe_orc_read_options o = {0};
    if (preds) {
        o.predicates = p;
        o.num_predicates = 2;
    }
    floe_orc_reader *r;
    FLOE_TRY(floe_orc_reader_open(f, &o, &r));
    floe_status st = NULL;
    *rows = 0;
    for (;;) {
        floe_batch *b;
        st = floe_orc_reader_next(r, &b);
        if (st || !b) break;
        *rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_orc_reader_skip_stats(r, ss);
    floe_orc_reader_close(r);
    return st;
}

static int bench_skip(const char *path, const char *col, int64_t lo, int64_t hi, int runs) {
    floe_orc_file *f;
    floe_status st = floe_orc_file_open_path(path, &f);
    if (st) return fail(st);
    double ts[64], tf[64];
    int64_t rs = 0, rf = 0;
    floe_orc_skip_stats ss, sf;
    for (int i = -1; i < runs; i++) {
        double t0 = now_seconds();
        if ((st = pass_skip(f, col, lo, hi, true, &rs, &ss))) return fail(st);
        double t1 = now_seconds();
        if ((st = pass_skip(f, col, lo, hi, false, &rf, &sf))) return fail(st);
        double t2 = now_seconds();
        if (i >= 0) {
            ts[i] = t1 - t0;
            tf[i] = t2 - t1;
        }
    }
    qsort(ts, (size_t)runs, sizeof(double), cmp_double);
    qsort(tf, (size_t)runs, sizeof(double), cmp_double);
    printf("{\"engine\":\"floe\",\"format\":\"orc\",\"mode\":\"skip\",\"rows_kept\":%lld,"
           "\"rows_total\":%lld,\"row_groups\":%lld,\"row_groups_skipped\":%lld,\"seeks\":%lld,"
           "\"median_skip\":%.4f,\"median_full\":%.4f}\n",
           (long long)rs, (long long)rf, (long long)ss.row_groups_total,
           (long long)ss.row_groups_skipped, (long long)ss.row_group_seeks, ts[runs / 2], tf[runs / 2]);
    floe_orc_file_close(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 7 && !strcmp(argv[1], "skip")) {
        int runs = atoi(argv[6]);
        return bench_skip(argv[2], argv[3], atoll(argv[4]), atoll(argv[5]), runs < 1 || runs > 64 ? 5 : runs);
    }
    if (argc != 4) {
        fprintf(stderr, "usage: orc_read_bench FILE.orc OUT.parquet RUNS\n"
                        "       orc_read_bench skip FILE.orc COLUMN LO HI RUNS\n");
        return 2;
    }
    int runs = atoi(argv[3]);
    if (runs < 1 || runs > 64) runs = 5;
    floe_status st = copy_to_parquet(argv[1], argv[2]);
    if (st) return fail(st);
    floe_orc_file *of;
    floe_pq_file *pf;
    if ((st = floe_orc_file_open_path(argv[1], &of))) return fail(st);
    if ((st = floe_pq_file_open_path(argv[2], &pf))) return fail(st);
    double to[64], tp[64];
    int64_t ro = 0, rp = 0;
    for (int i = -1; i < runs; i++) {
        double t0 = now_seconds();
        if ((st = pass_orc(of, &ro))) return fail(st);
        double t1 = now_seconds();
        if ((st = pass_parquet(pf, &rp))) return fail(st);
        double t2 = now_seconds();
        if (i >= 0) {
            to[i] = t1 - t0;
            tp[i] = t2 - t1;
        }
    }
    print_result("orc", argv[1], ro, to, runs);
    print_result("parquet", argv[2], rp, tp, runs);
    floe_orc_file_close(of);
    floe_pq_file_close(pf);
    return ro == rp ? 0 : 1;
}
