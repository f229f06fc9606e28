/* Puffin files: Java's sample files (uncompressed and zstd blobs), Java
 * deletion-vector Puffin files, writer round trips (LZ4 footer, zstd and
 * LZ4 blobs), and clear errors on truncated or mangled files. */
#include "floe_test.h"

#include <string.h>

#include "floe/iceberg_deletes.h"
#include "floe/memory.h"

#define PUFFIN_V1 "apache__iceberg/core/src/test/resources/org/apache/iceberg/puffin/v1/"
#define GO_DV "apache__iceberg-go/table/dv/testdata/deletes/"

static floe_input *open_td(const char *dir, const char *rel) {
    char p[4096];
    floe_input *in;
    assert_ok(floe_input_open_local(floe_test_path(p, sizeof p, dir, rel), &in));
    return in;
}

static void read_blob_bytes(const floe_ice_puffin *p, floe_input *in, int i, const char *want, size_t wlen) {
    uint8_t *d;
    size_t n;
    assert_ok(floe_ice_puffin_read_blob(p, in, i, &d, &n));
    assert_int_equal(n, wlen);
    assert_memory_equal(d, want, n);
    floe_free(d);
}

/* Java's second sample blob: a NUL and a 4-byte UTF-8 character inside. */
static const char LONG_BLOB_BYTES[] = "some blob \0 binary data \xf0\x9f\xa4\xaf that is not very very very very very very long, is it?";
#define LONG_BLOB_LEN (sizeof LONG_BLOB_BYTES - 1)

static void java_sample_files_read_blobs_and_metadata(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    const char *files[2] = {PUFFIN_V1 "sample-metric-data-uncompressed.bin", PUFFIN_V1 "sample-metric-data-compressed-zstd.bin"};
    for (int f = 0; f < 2; f++) {
        floe_input *in = open_td(dir, files[f]);
        floe_ice_puffin *p;
        assert_ok(floe_ice_puffin_open(in, &p));
        assert_int_equal(p->n_blobs, 2);
        assert_string_equal(p->blobs[0].type, "some-blob");
        assert_string_equal(p->blobs[1].type, "some-other-blob");
        assert_int_equal(p->blobs[0].n_fields, 1);
        assert_int_equal(p->blobs[0].fields[0], 1);
        assert_int_equal(p->blobs[1].fields[0], 2);
        assert_int_equal(p->blobs[0].snapshot_id, 2);
        assert_int_equal(p->blobs[0].sequence_number, 1);
        assert_int_equal(p->blobs[0].offset, 4);
        if (f == 0)
            assert_null(p->blobs[0].compression_codec);
        else
            assert_string_equal(p->blobs[0].compression_codec, "zstd");
        assert_int_equal(p->n_properties, 1);
        assert_string_equal(p->property_keys[0], "created-by");
        assert_string_equal(p->property_values[0], "Test 1234");
        read_blob_bytes(p, in, 0, "abcdefghi", 9);
        read_blob_bytes(p, in, 1, LONG_BLOB_BYTES, LONG_BLOB_LEN);
        assert_error(floe_ice_puffin_read_blob(p, in, 2, &(uint8_t *){0}, &(size_t){0}), FLOE_ERR_INVALID_ARGUMENT,
                     "no blob 2");
        floe_ice_puffin_free(p);
        floe_input_close(in);
    }
    floe_input *in = open_td(dir, PUFFIN_V1 "empty-puffin-uncompressed.bin");
    floe_ice_puffin *p;
    assert_ok(floe_ice_puffin_open(in, &p));
    assert_int_equal(p->n_blobs, 0);
    floe_ice_puffin_free(p);
    floe_input_close(in);
}

static int64_t dv_count(floe_ice_puffin *p, floe_input *in, int i) {
    floe_ice_posdel *pd;
    assert_ok(floe_ice_posdel_new(&pd));
    assert_ok(floe_ice_posdel_add_dv(pd, in, p->blobs[i].offset, p->blobs[i].length));
    assert_ok(floe_ice_posdel_finish(pd));
    int64_t n = floe_ice_posdel_count(pd);
    floe_ice_posdel_free(pd);
    return n;
}

static void java_dv_puffin_files_hold_their_cardinality(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    const char *files[3] = {GO_DV "single-blob-dv.puffin", GO_DV "multi-blob-dv.puffin",
                            "apache__iceberg-go/puffin/testdata/deletion-vector-v1.puffin"};
    int total_blobs = 0;
    for (int f = 0; f < 3; f++) {
        floe_input *in = open_td(dir, files[f]);
        floe_ice_puffin *p;
        assert_ok(floe_ice_puffin_open(in, &p));
        for (int i = 0; i < p->n_blobs; i++, total_blobs++) {
            assert_string_equal(p->blobs[i].type, FLOE_ICE_PUFFIN_DV_BLOB);
            const char *card = floe_ice_puffin_blob_property(&p->blobs[i], "cardinality");
            assert_non_null(card);
            assert_non_null(floe_ice_puffin_blob_property(&p->blobs[i], "referenced-data-file"));
            assert_int_equal(dv_count(p, in, i), strtoll(card, NULL, 10));
        }
        floe_ice_puffin_free(p);
        floe_input_close(in);
    }
    assert_int_equal(total_blobs, 4);
}

static void writer_round_trips_with_compressed_footer_and_blobs(void **state) {
    (void)state;
    char tmp[1024], path[1200];
    floe_test_tmpdir(tmp, sizeof tmp, "puffin_writer");
    const char *codecs[3] = {NULL, "zstd", "lz4"};
    for (int comp = 0; comp < 2; comp++) {
        snprintf(path, sizeof path, "%s/f%d.puffin", tmp, comp);
        floe_output *out;
        assert_ok(floe_output_create_local(path, 1, &out));
        floe_ice_puffin_writer *w;
        assert_ok(floe_ice_puffin_writer_open(out, &w));
        int32_t fields[1] = {7};
        const char *k[2] = {"a", "referenced-data-file"}, *v[2] = {"1", "s3://x/y.parquet"};
        int64_t offs[3], lens[3];
        for (int b = 0; b < 3; b++) {
            floe_ice_puffin_blob_spec s = {.type = b ? "other" : "x", .fields = fields, .n_fields = 1, .snapshot_id = 5,
                                           .sequence_number = 6, .compression_codec = codecs[b], .n_properties = 2,
                                           .property_keys = k, .property_values = v};
            assert_ok(floe_ice_puffin_writer_add(w, &s, (const uint8_t *)LONG_BLOB_BYTES, LONG_BLOB_LEN, &offs[b], &lens[b]));
        }
        assert_int_equal(offs[0], 4);
        assert_ok(floe_ice_puffin_writer_finish(w, comp == 1));
        assert_ok(floe_output_close(out));

        floe_input *in;
        assert_ok(floe_input_open_local(path, &in));
        floe_ice_puffin *p;
        assert_ok(floe_ice_puffin_open(in, &p));
        assert_int_equal(p->n_blobs, 3);
        for (int b = 0; b < 3; b++) {
            assert_int_equal(p->blobs[b].offset, offs[b]);
            assert_int_equal(p->blobs[b].length, lens[b]);
            assert_int_equal(p->blobs[b].snapshot_id, 5);
            assert_string_equal(floe_ice_puffin_blob_property(&p->blobs[b], "referenced-data-file"), "s3://x/y.parquet");
            read_blob_bytes(p, in, b, LONG_BLOB_BYTES, LONG_BLOB_LEN);
        }
        floe_ice_puffin_free(p);
        floe_input_close(in);
    }
}

static floe_status open_mem(const uint8_t *d, size_t n) {
    floe_input *in;
    floe_status st = floe_input_from_memory(d, n, "mem.puffin", &in);
    if (st) return st;
    floe_ice_puffin *p = NULL;
    st = floe_ice_puffin_open(in, &p);
    floe_ice_puffin_free(p);
    floe_input_close(in);
    return st;
}

static void damaged_files_fail_clearly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    floe_input *in = open_td(dir, PUFFIN_V1 "sample-metric-data-uncompressed.bin");
    uint8_t *d;
    size_t n;
    assert_ok(floe_input_read_all(in, &d, &n));
    floe_input_close(in);
    assert_ok(open_mem(d, n));
    /* every truncation fails without reading out of bounds */
    for (size_t cut = 0; cut < n; cut++) {
        floe_status st = open_mem(d, cut);
        assert_true(floe_status_code(st) == FLOE_ERR_CORRUPT);
        floe_status_free(st);
    }
    d[0] = 'X';
    assert_error(open_mem(d, n), FLOE_ERR_CORRUPT, "no PFA1 magic at byte 0");
    d[0] = 'P';
    d[n - 9] = 0x7F; /* payload size too large */
    assert_error(open_mem(d, n), FLOE_ERR_CORRUPT, "footer payload size");
    floe_free(d);

    /* a blob range pointing into the footer */
    const char *json = "{\"blobs\":[{\"type\":\"t\",\"fields\":[],\"offset\":4,\"length\":99}]}";
    uint8_t buf[256];
    size_t jl = strlen(json), k = 0;
    memcpy(buf, "PFA1PFA1", 8);
    k = 8;
    memcpy(buf + k, json, jl);
    k += jl;
    uint8_t tail[12] = {(uint8_t)jl, 0, 0, 0, 0, 0, 0, 0, 'P', 'F', 'A', '1'};
    memcpy(buf + k, tail, 12);
    k += 12;
    assert_error(open_mem(buf, k), FLOE_ERR_CORRUPT, "outside the blob area");
    /* the same flagged as LZ4-compressed while it is not */
    buf[k - 8] = 1;
    assert_error(open_mem(buf, k), FLOE_ERR_CORRUPT, "lz4");
}

FLOE_TEST_MAIN(cmocka_unit_test(java_sample_files_read_blobs_and_metadata),
               cmocka_unit_test(java_dv_puffin_files_hold_their_cardinality),
               cmocka_unit_test(writer_round_trips_with_compressed_footer_and_blobs),
               cmocka_unit_test(damaged_files_fail_clearly))
