/*
 * fuzz_avro.c — libFuzzer target for floe's Avro code (formats/avro).
 *
 * The input is treated, in turn, as:
 *   - an object container file, read through an in-memory floe_input:
 *     every record decoded and rendered as JSON; when that succeeds the
 *     records are written again with floe's writer and must read back
 *     (floe reads what floe writes) with the same count;
 *   - schema JSON: parsed, written, and the written form must parse;
 *   - one binary datum of an Iceberg-manifest-like schema, decoded as is and
 *     through a resolving reader schema; a successful decode must encode
 *     and decode again.
 *
 * Build and run (option FLOE_FUZZ in CMakeLists.txt):
 *   CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug \
 *         -DFLOE_FUZZ=ON -DFLOE_SANITIZE=ON
 *   cmake --build build/fuzz --target fuzz_avro
 *   build/fuzz/fuzz_avro -max_total_time=30 CORPUS_DIR
 * A good seed corpus: the .avro files of apache__avro and fastavro in the
 * shared test data, and a few Iceberg manifests.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/avro/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A floe_output that appends to a buffer. */
typedef struct mem_output {
    floe_output base;
    floe_buf *buf;
} mem_output;

static floe_status mem_write(floe_output *out, const void *p, size_t n) {
    mem_output *m = (mem_output *)out;
    out->bytes_written += n;
    return floe_buf_append(m->buf, p, n);
}
static floe_status mem_close(floe_output *out) {
    (void)out;
    return NULL;
}
static void mem_abort(floe_output *out) { (void)out; }
static const floe_output_ops mem_ops = {mem_write, mem_close, mem_abort};

static void ignore(floe_status st) { floe_status_free(st); }

/* Read every record of `in`; optionally append each to writer `w`. */
static floe_status read_all(floe_input *in, floe_avro_writer **w, floe_buf *file, uint64_t *n) {
    floe_avro_reader *r;
    *n = 0;
    FLOE_TRY(floe_avro_reader_open(in, NULL, &r));
    floe_status st = NULL;
    mem_output out = {{&mem_ops, (char *)"memory", 0}, file};
    if (w) {
        floe_avro_writer_options o = {FLOE_AVRO_CODEC_DEFLATE, 1, 512};
        floe_avro_meta meta[1] = {{(char *)"k", (uint8_t *)"v", 1}};
        st = floe_avro_writer_open(&out.base, floe_avro_reader_schema(r), meta, 1, &o, w);
    }
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_buf json = FLOE_BUF_INIT;
    for (int has = 1; !st && has;) {
        floe_avro_value v;
        st = floe_avro_reader_next(r, &a, &v, &has);
        if (st || !has) break;
        floe_buf_clear(&json);
        st = floe_avro_value_to_json(floe_avro_reader_schema(r), &v, &json);
        if (!st && w) st = floe_avro_writer_append(*w, &v);
        (*n)++;
        floe_arena_reset(&a);
    }
    if (w && *w) {
        if (!st) st = floe_avro_writer_finish(*w);
        else floe_avro_writer_abort(*w);
        *w = NULL;
    }
    floe_buf_free(&json);
    floe_arena_destroy(&a);
    floe_avro_reader_close(r);
    return st;
}

static void fuzz_container(const uint8_t *data, size_t size) {
    floe_input *in;
    if (floe_input_from_memory(data, size, "fuzz", &in)) abort();
    floe_buf file = FLOE_BUF_INIT;
    floe_avro_writer *w = NULL;
    uint64_t n = 0, n2 = 0;
    floe_status st = read_all(in, &w, &file, &n);
    floe_input_close(in);
    if (!st) {
        floe_input *in2;
        if (floe_input_from_memory(file.data, file.len, "rewritten", &in2)) abort();
        floe_status st2 = read_all(in2, NULL, NULL, &n2);
        if (st2 || n2 != n) abort(); /* floe must read what floe writes */
        floe_input_close(in2);
    }
    ignore(st);
    floe_buf_free(&file);
}

static void fuzz_schema(const uint8_t *data, size_t size) {
    floe_avro_schema *s = NULL;
    floe_status st = floe_avro_schema_parse((const char *)data, size, &s);
    if (st) {
        ignore(st);
        return;
    }
    floe_buf b = FLOE_BUF_INIT;
    if (!floe_avro_schema_to_json(s, 0, &b)) {
        floe_avro_schema *s2 = NULL;
        floe_status st2 = floe_avro_schema_parse((const char *)b.data, b.len, &s2);
        if (st2) abort(); /* the written form must parse */
        floe_avro_schema_free(s2);
    }
    floe_buf_free(&b);
    floe_avro_schema_free(s);
}

static const char *writer_json =
    "{\"type\":\"record\",\"name\":\"e\",\"fields\":["
    "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
    "{\"name\":\"snap\",\"type\":[\"null\",\"long\"],\"field-id\":1},"
    "{\"name\":\"df\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
    "  {\"name\":\"path\",\"type\":\"string\",\"field-id\":100},"
    "  {\"name\":\"fmt\",\"type\":{\"type\":\"enum\",\"name\":\"F\",\"symbols\":[\"A\",\"B\"]},\"field-id\":101},"
    "  {\"name\":\"sizes\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"kv\","
    "     \"fields\":[{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\",\"type\":\"long\"}]}}],\"field-id\":108},"
    "  {\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"bytes\"},\"field-id\":109},"
    "  {\"name\":\"f\",\"type\":\"float\",\"field-id\":110},"
    "  {\"name\":\"d\",\"type\":\"double\",\"field-id\":111},"
    "  {\"name\":\"x\",\"type\":{\"type\":\"fixed\",\"name\":\"X\",\"size\":3},\"field-id\":112},"
    "  {\"name\":\"b\",\"type\":\"boolean\",\"field-id\":113}]},\"field-id\":2}]}";

static const char *reader_json =
    "{\"type\":\"record\",\"name\":\"e\",\"fields\":["
    "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"field-id\":1},"
    "{\"name\":\"df\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
    "  {\"name\":\"sizes\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"kv\","
    "     \"fields\":[{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\",\"type\":\"long\"}]}}],\"field-id\":108},"
    "  {\"name\":\"f\",\"type\":\"double\",\"field-id\":110},"
    "  {\"name\":\"added\",\"type\":\"string\",\"default\":\"z\",\"field-id\":120}]},\"field-id\":2},"
    "{\"name\":\"status\",\"type\":\"long\",\"field-id\":0}]}";

static void fuzz_datum(const uint8_t *data, size_t size) {
    floe_avro_schema *w = NULL, *r = NULL;
    if (floe_avro_schema_parse(writer_json, strlen(writer_json), &w)) abort();
    if (floe_avro_schema_parse(reader_json, strlen(reader_json), &r)) abort();
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value v;
    floe_status st = floe_avro_decode_datum(w, NULL, data, size, &a, &v, NULL);
    if (!st) {
        floe_buf b = FLOE_BUF_INIT;
        if (floe_avro_encode_datum(w, &v, &b)) abort();
        floe_avro_value v2;
        if (floe_avro_decode_datum(w, NULL, b.data, b.len, &a, &v2, NULL)) abort();
        floe_buf_free(&b);
    }
    ignore(st);
    ignore(floe_avro_decode_datum(w, r, data, size, &a, &v, NULL));
    floe_arena_destroy(&a);
    floe_avro_schema_free(w);
    floe_avro_schema_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_container(data, size);
    fuzz_schema(data, size);
    fuzz_datum(data, size);
    return 0;
}
