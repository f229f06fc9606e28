/*
 * ice_manifest_tool.c — a test/benchmark helper for Iceberg manifests.
 *
 *   ice_manifest_tool write DIR N VERSION   write DIR/manifest.avro with N
 *       entries (spec: identity(id) as "id", day(ts) as "ts_day") and
 *       DIR/list.avro pointing at it; entry i has record_count 100 + i
 *   ice_manifest_tool decode FILE [REPEAT]  decode a manifest with floe,
 *       print "entries N seconds S" (best of REPEAT runs)
 *
 * Used by tests/scripts/iceberg_live_files_vs_python.sh (python3-avro reads
 * what floe writes) and bench/manifest_decode.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/fileio.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"

static int fail(floe_status st) {
    fprintf(stderr, "ice_manifest_tool: %s\n", floe_status_message(st));
    floe_status_free(st);
    return 1;
}

static floe_status build(floe_ice_schema **schema, floe_ice_partition_spec **spec) {
    FLOE_TRY(floe_ice_schema_from_json_text(
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
        "{\"id\":3,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}",
        schema));
    return floe_ice_partition_spec_from_json_text(
        "{\"spec-id\":0,\"fields\":[{\"name\":\"id\",\"transform\":\"identity\",\"source-id\":1,\"field-id\":1000},"
        "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":2,\"field-id\":1001}]}",
        spec);
}

static floe_status write_manifest(const char *dir, long n, int version) {
    floe_ice_schema *schema = NULL;
    floe_ice_partition_spec *spec = NULL;
    FLOE_TRY(build(&schema, &spec));
    char path[4096], lpath[4096];
    snprintf(path, sizeof path, "%s/manifest.avro", dir);
    snprintf(lpath, sizeof lpath, "%s/list.avro", dir);
    floe_output *out = NULL;
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {version, FLOE_ICE_MANIFEST_DATA, schema, spec, 42};
    floe_status st = floe_output_create_local(path, 1, &out);
    if (!st) st = floe_ice_manifest_writer_open(out, &o, &w);
    char fp[256];
    int32_t keys[3] = {1, 2, 3};
    int64_t sizes[3] = {1000, 2000, 3000};
    uint8_t lo[8] = {1, 0, 0, 0, 0, 0, 0, 0}, hi[8] = {0xff, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t *lov[1] = {lo}, *hiv[1] = {hi};
    uint32_t lens[1] = {8};
    int64_t splits[2] = {4, 1024};
    for (long i = 0; !st && i < n; i++) {
        floe_ice_manifest_entry e;
        memset(&e, 0, sizeof e);
        e.status = FLOE_ICE_STATUS_ADDED;
        e.snapshot_id = version == 1 ? 42 : -1;
        e.sequence_number = e.file_sequence_number = -1;
        floe_ice_data_file_init(&e.file);
        snprintf(fp, sizeof fp, "s3://bucket/table/data/id=%ld/ts_day=2024-01-%02ld/part-%08ld.parquet", i % 7,
                 1 + i % 28, i);
        e.file.file_path = fp;
        e.file.file_format = "PARQUET";
        floe_ice_value part[2] = {floe_ice_long(i % 7), floe_ice_date((int32_t)(19723 + i % 28))};
        e.file.n_partition = 2;
        e.file.partition = part;
        e.file.record_count = 100 + i;
        e.file.file_size_in_bytes = 4096 + i;
        e.file.column_sizes = (floe_ice_count_map){3, keys, sizes};
        e.file.value_counts = (floe_ice_count_map){3, keys, sizes};
        e.file.null_value_counts = (floe_ice_count_map){3, keys, sizes};
        e.file.lower_bounds = (floe_ice_bound_map){1, keys, lov, lens};
        e.file.upper_bounds = (floe_ice_bound_map){1, keys, hiv, lens};
        e.file.n_split_offsets = 2;
        e.file.split_offsets = splits;
        e.file.has_sort_order_id = true;
        st = floe_ice_manifest_writer_add(w, &e);
    }
    floe_ice_manifest_file sum;
    if (w) {
        if (st) floe_ice_manifest_writer_abort(w);
        else st = floe_ice_manifest_writer_finish(w, &sum);
    }
    if (out) {
        if (st) floe_output_abort(out);
        else {
            uint64_t len = out->bytes_written;
            st = floe_output_close(out);
            sum.manifest_length = (int64_t)len;
        }
    }
    if (!st) {
        sum.manifest_path = path;
        sum.sequence_number = 1;
        sum.min_sequence_number = 1;
        floe_ice_field_summary ps[2] = {{false, -1, lo, 8, hi, 8}, {false, -1, NULL, 0, NULL, 0}};
        sum.n_partitions = 2;
        sum.partitions = ps;
        floe_ice_manifest_list_options lo_ = {version, 42, FLOE_ICE_NO_SNAPSHOT, 1, version >= 3, 0};
        st = floe_output_create_local(lpath, 1, &out);
        if (!st) {
            st = floe_ice_manifest_list_write(out, &lo_, &sum, 1);
            if (st) floe_output_abort(out);
            else st = floe_output_close(out);
        }
    }
    floe_ice_schema_free(schema);
    floe_ice_partition_spec_free(spec);
    if (!st) printf("wrote %s (%ld entries) and %s\n", path, n, lpath);
    return st;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static floe_status decode(const char *path, int repeat) {
    double best = 1e30;
    size_t n = 0;
    for (int r = 0; r < repeat; r++) {
        double t0 = now();
        floe_input *in = NULL;
        FLOE_TRY(floe_input_open_local(path, &in));
        floe_ice_manifest *m = NULL;
        floe_status st = floe_ice_manifest_read(in, NULL, &m);
        floe_input_close(in);
        FLOE_TRY(st);
        n = m->n_entries;
        floe_ice_manifest_free(m);
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    printf("entries %zu seconds %.4f\n", n, best);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc >= 5 && !strcmp(argv[1], "write")) {
        floe_status st = write_manifest(argv[2], atol(argv[3]), atoi(argv[4]));
        return st ? fail(st) : 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "decode")) {
        floe_status st = decode(argv[2], argc >= 4 ? atoi(argv[3]) : 1);
        return st ? fail(st) : 0;
    }
    fprintf(stderr, "usage: ice_manifest_tool write DIR N VERSION | decode FILE [REPEAT]\n");
    return 2;
}
