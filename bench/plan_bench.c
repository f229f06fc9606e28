/*
 * plan_bench.c — time and memory of scan planning on a synthetic table of
 * 1,000 manifests x 1,000 data files (1M files, nonexistent s3:// paths).
 *
 *   plan_bench [DIR] [THREADS] [FILTER]
 *
 * DIR (default bench/data/plan_bench) receives the table on first use:
 * v2 metadata, a manifest list and the manifests written with floe's
 * manifest writer.  Column 1 `id` (long) has per-file bounds
 * [file*1000, file*1000+999]; column 2 `cat` (int) is the identity
 * partition (one value per manifest).  Then plans, each with a cold
 * manifest cache and again warm:
 *   selective:      cat = 123 and id between 123456000 and 123456010
 *                   (1 file; 999 manifests pruned by partition summaries)
 *   selective-id:   id between 123456000 and 123456010 (1 file; every
 *                   manifest read, entries pruned by metrics)
 *   non-selective:  id >= 0                              (all 1M files)
 * printing one JSON line per run: seconds, CPU seconds and minor page
 * faults of the planning call, tasks, groups, peak bytes of the plan's
 * memory tracker and of the root tracker, and max RSS.  FILTER (a name
 * prefix, e.g. "non") runs only the matching plans.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "base/threadpool.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"

#define N_MANIFESTS 1000
#define N_ENTRIES 1000

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(floe_status st) {
    fprintf(stderr, "plan_bench: %s\n", floe_status_message(st));
    exit(1);
}

#define CHECK(x)                                                                                               \
    do {                                                                                                       \
        floe_status st_ = (x);                                                                                 \
        if (st_) die(st_);                                                                                     \
    } while (0)

static const char schema_json[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"cat\",\"required\":true,\"type\":\"int\"}]}";

static void write_manifest(const char *dir, int m, const floe_ice_schema *schema, const floe_ice_partition_spec *spec,
                           floe_ice_manifest_file *mf, uint8_t *bounds) {
    char path[4096];
    snprintf(path, sizeof path, "%s/metadata/m%04d.avro", dir, m);
    floe_output *out = NULL;
    CHECK(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer_options o = {2, FLOE_ICE_MANIFEST_DATA, schema, spec, 1};
    floe_ice_manifest_writer *w = NULL;
    CHECK(floe_ice_manifest_writer_open(out, &o, &w));
    floe_ice_value part = floe_ice_int(m);
    int32_t keys[2] = {1, 2};
    int64_t counts[2] = {N_ENTRIES, N_ENTRIES}, nulls[2] = {0, 0};
    int32_t bkeys[1] = {1};
    uint32_t blens[1] = {8};
    char fp[256];
    for (int k = 0; k < N_ENTRIES; k++) {
        int64_t lo = ((int64_t)m * N_ENTRIES + k) * 1000, hi = lo + 999;
        uint8_t lob[8], hib[8];
        for (int b = 0; b < 8; b++) lob[b] = (uint8_t)(lo >> (8 * b)), hib[b] = (uint8_t)(hi >> (8 * b));
        const uint8_t *lv[1] = {lob}, *uv[1] = {hib};
        floe_ice_manifest_entry e;
        memset(&e, 0, sizeof e);
        e.status = FLOE_ICE_STATUS_ADDED;
        e.snapshot_id = -1;
        e.sequence_number = -1;
        e.file_sequence_number = -1;
        floe_ice_data_file_init(&e.file);
        snprintf(fp, sizeof fp, "s3://bench-bucket/t/data/cat=%d/%04d-%04d.parquet", m, m, k);
        e.file.content = FLOE_ICE_CONTENT_DATA;
        e.file.file_path = fp;
        e.file.file_format = "PARQUET";
        e.file.spec_id = 0;
        e.file.n_partition = 1;
        e.file.partition = &part;
        e.file.record_count = 1000;
        e.file.file_size_in_bytes = 1 << 20;
        e.file.value_counts = (floe_ice_count_map){2, keys, counts};
        e.file.null_value_counts = (floe_ice_count_map){2, keys, nulls};
        e.file.lower_bounds = (floe_ice_bound_map){1, bkeys, lv, blens};
        e.file.upper_bounds = (floe_ice_bound_map){1, bkeys, uv, blens};
        CHECK(floe_ice_manifest_writer_add(w, &e));
    }
    CHECK(floe_ice_manifest_writer_finish(w, mf));
    uint64_t len = out->bytes_written;
    CHECK(floe_output_close(out));
    mf->manifest_path = floe_strdup(path);
    mf->manifest_length = (int64_t)len;
    mf->partition_spec_id = 0;
    mf->content = FLOE_ICE_MANIFEST_DATA;
    mf->sequence_number = 1;
    mf->min_sequence_number = 1;
    mf->added_snapshot_id = 1;
    mf->n_partitions = 1;
    mf->partitions = floe_calloc(1, sizeof *mf->partitions);
    for (int b = 0; b < 4; b++) bounds[b] = (uint8_t)(m >> (8 * b));
    mf->partitions[0] = (floe_ice_field_summary){false, 0, bounds, 4, bounds, 4};
}

static void generate(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "mkdir -p '%s/metadata'", dir);
    if (system(path) != 0) exit(1);
    floe_ice_schema *schema = NULL;
    CHECK(floe_ice_schema_from_json_text(schema_json, &schema));
    floe_ice_partition_spec *spec = NULL;
    CHECK(floe_ice_partition_spec_new(0, &spec));
    CHECK(floe_ice_partition_spec_add(spec, 2, 1000, "cat", floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
    floe_ice_manifest_file *mfs = floe_calloc(N_MANIFESTS, sizeof *mfs);
    uint8_t *bounds = floe_calloc(N_MANIFESTS, 4);
    for (int m = 0; m < N_MANIFESTS; m++) write_manifest(dir, m, schema, spec, &mfs[m], bounds + 4 * m);
    snprintf(path, sizeof path, "%s/metadata/snap-1.avro", dir);
    floe_output *out = NULL;
    CHECK(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_list_options lo = {2, 1, FLOE_ICE_NO_SNAPSHOT, 1, false, 0};
    CHECK(floe_ice_manifest_list_write(out, &lo, mfs, N_MANIFESTS));
    CHECK(floe_output_close(out));
    snprintf(path, sizeof path, "%s/metadata/v1.metadata.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) exit(1);
    fprintf(f,
            "{\"format-version\":2,\"table-uuid\":\"00000000-0000-0000-0000-000000000001\",\"location\":\"%s\","
            "\"last-sequence-number\":1,\"last-updated-ms\":1,\"last-column-id\":2,\"current-schema-id\":0,"
            "\"schemas\":[%s],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[{\"name\":"
            "\"cat\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1000}]}],\"last-partition-id\":1000,"
            "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
            "\"current-snapshot-id\":1,\"snapshots\":[{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":1,"
            "\"manifest-list\":\"%s/metadata/snap-1.avro\",\"summary\":{\"operation\":\"append\"}}],"
            "\"snapshot-log\":[],\"metadata-log\":[]}\n",
            dir, schema_json, dir);
    fclose(f);
    snprintf(path, sizeof path, "%s/metadata/version-hint.text", dir);
    f = fopen(path, "w");
    if (!f) exit(1);
    fputs("1", f);
    fclose(f);
    for (int m = 0; m < N_MANIFESTS; m++) {
        floe_free((char *)mfs[m].manifest_path);
        floe_free(mfs[m].partitions);
    }
    floe_free(mfs);
    floe_free(bounds);
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(schema);
}

static double cpu_seconds(const struct rusage *ru) {
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 + (double)ru->ru_stime.tv_sec +
           (double)ru->ru_stime.tv_usec * 1e-6;
}

/* Run only the filters whose name starts with this (argv[3]; NULL: all). */
static const char *only;

static void run(const floe_ice_table *t, floe_threadpool *pool, const char *name, const floe_ice_expr *filter, bool cold) {
    if (only && strncmp(name, only, strlen(only)) != 0) return;
    if (cold) floe_ice_manifest_cache_clear();
    floe_mem_tracker tr;
    floe_mem_tracker_init(&tr, "plan");
    floe_mem_reset_peak(floe_mem_root());
    floe_mem_tracker *prev = floe_mem_set_current(&tr);
    floe_ice_scan_options o;
    floe_ice_scan_options_init(&o);
    o.target_partitions = 64;
    o.pool = pool;
    floe_ice_scan_plan *p = NULL;
    struct rusage ru0, ru;
    getrusage(RUSAGE_SELF, &ru0);
    double t0 = now_seconds();
    CHECK(floe_ice_scan_plan_new(t, NULL, NULL, 0, filter, &o, &p));
    double secs = now_seconds() - t0;
    getrusage(RUSAGE_SELF, &ru);
    int64_t tasks = p->stats.n_tasks;
    int32_t groups = p->n_groups;
    floe_ice_scan_plan_free(p);
    floe_mem_set_current(prev);
    floe_ice_manifest_cache_stats cs;
    floe_ice_manifest_cache_stats_get(&cs);
    /* CPU seconds (all threads) and minor faults of the planning call
     * itself: steadier than wall time on a shared machine. */
    printf("{\"bench\":\"plan\",\"filter\":\"%s\",\"cache\":\"%s\",\"seconds\":%.3f,\"cpu_seconds\":%.3f,"
           "\"minor_faults\":%ld,\"tasks\":%" PRId64 ",\"groups\":%d,\"plan_peak_bytes\":%" PRId64
           ",\"root_peak_bytes\":%" PRId64 ",\"max_rss_kib\":%ld,\"cache_entries\":%" PRId64
           ",\"cache_bytes\":%" PRId64 "}\n",
           name, cold ? "cold" : "warm", secs, cpu_seconds(&ru) - cpu_seconds(&ru0), ru.ru_minflt - ru0.ru_minflt, tasks,
           (int)groups, floe_mem_peak_bytes(&tr), floe_mem_peak_bytes(floe_mem_root()), ru.ru_maxrss, cs.entries,
           cs.bytes);
    fflush(stdout);
}

int main(int argc, char **argv) {
    /* As the floe program does: freed memory stays in the heap, so later
     * plans reuse pages instead of faulting fresh ones in. */
    floe_memory_tune_process();
    const char *dir = argc > 1 ? argv[1] : "bench/data/plan_bench";
    size_t threads = argc > 2 ? (size_t)atoi(argv[2]) : 2;
    only = argc > 3 ? argv[3] : NULL;
    char *abs = realpath(dir, NULL);
    if (!abs) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        if (system(cmd) != 0 || !(abs = realpath(dir, NULL))) return 1;
    }
    char hint[4200];
    snprintf(hint, sizeof hint, "%s/metadata/version-hint.text", abs);
    struct stat sb;
    if (stat(hint, &sb) != 0) {
        double t0 = now_seconds();
        generate(abs);
        fprintf(stderr, "plan_bench: wrote %d manifests x %d entries in %.1f s\n", N_MANIFESTS, N_ENTRIES,
                now_seconds() - t0);
    }
    floe_threadpool *pool = NULL;
    CHECK(floe_threadpool_create(threads, &pool));
    floe_ice_table *t = NULL;
    CHECK(floe_ice_table_open(NULL, abs, false, &t));
    floe_ice_value lo = floe_ice_long(123456000), hi = floe_ice_long(123456010), zero = floe_ice_long(0);
    floe_ice_expr *sel = floe_ice_expr_and(floe_ice_expr_literal(FLOE_ICE_EXPR_GT_EQ, "id", &lo),
                                           floe_ice_expr_literal(FLOE_ICE_EXPR_LT_EQ, "id", &hi));
    floe_ice_value c123 = floe_ice_int(123);
    floe_ice_expr *sel_part = floe_ice_expr_and(floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "cat", &c123), floe_ice_expr_copy(sel));
    floe_ice_expr *all = floe_ice_expr_literal(FLOE_ICE_EXPR_GT_EQ, "id", &zero);
    run(t, pool, "selective", sel_part, true);
    run(t, pool, "selective", sel_part, false);
    run(t, pool, "selective-id", sel, true);
    run(t, pool, "selective-id", sel, false);
    run(t, pool, "non-selective", all, true);
    run(t, pool, "non-selective", all, false);
    floe_ice_manifest_cache_clear();
    floe_ice_expr_free(sel);
    floe_ice_expr_free(sel_part);
    floe_ice_expr_free(all);
    floe_ice_table_free(t);
    floe_threadpool_destroy(pool);
    free(abs);
    return 0;
}
