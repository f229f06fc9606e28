/*
 * fuzz_orc.c — libFuzzer target for floe's ORC reader (formats/orc).
 *
 * The input is treated, in turn, as:
 *   - a whole ORC file through an in-memory floe_input: tail, postscript,
 *     footer, metadata and schema, then every stripe footer, row index and
 *     bloom filter index, then up to 64k rows of every column decoded
 *     (all columns; all columns with every third row group dropped, so
 *     the readers seek by the row index; a projection with a predicate so
 *     pruned nested readers run too), each batch validated;
 *   - each metadata message on its own: PostScript, Footer, Metadata,
 *     StripeFooter, RowIndex, BloomFilterIndex, ColumnStatistics;
 *   - an ORC compression stream under every codec.
 * Any error is fine; a crash, sanitizer report, leak, hang or a batch that
 * fails floe_batch_validate is not.
 *
 * Build and run (option FLOE_FUZZ in CMakeLists.txt):
 *   CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug \
 *         -DFLOE_FUZZ=ON -DFLOE_SANITIZE=ON
 *   cmake --build build/fuzz --target fuzz_orc
 *   build/fuzz/fuzz_orc -max_total_time=30 CORPUS_DIR
 * scripts/fuzz-smoke.sh seeds it with apache/orc's example files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/orc/reader.h"
#include "formats/orc/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ROWS 65536

static void read_rows(floe_orc_file *f, const floe_orc_read_options *o) {
    floe_orc_reader *r = NULL;
    floe_status st = floe_orc_reader_open(f, o, &r);
    int64_t rows = 0;
    while (!st && rows < MAX_ROWS) {
        floe_batch *b = NULL;
        st = floe_orc_reader_next(r, &b);
        if (st || !b) break;
        floe_status v = floe_batch_validate(b);
        if (v) { /* the reader built an invalid array */
            fprintf(stderr, "invalid batch: %s\n", floe_status_message(v));
            abort();
        }
        rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_status_free(st);
    floe_orc_reader_close(r);
}

/* every third row group dropped: the readers seek by the row index */
static bool drop_some(void *ctx, int stripe, int64_t g) {
    (void)ctx;
    (void)stripe;
    return g % 3 != 1;
}

static void check_file(const uint8_t *data, size_t size) {
    floe_input *in = NULL;
    floe_status st = floe_input_from_memory(data, size, "fuzz.orc", &in);
    if (st) {
        floe_status_free(st);
        return;
    }
    floe_orc_file *f = NULL;
    st = floe_orc_file_open(in, &f);
    if (!st) {
        for (size_t s = 0; s < floe_orc_file_num_stripes(f) && s < 4; s++) {
            floe_arena a;
            floe_arena_init(&a, 0);
            floe_orc_stripe_footer sf;
            floe_status fs = floe_orc_file_read_stripe_footer(f, s, &a, &sf);
            for (uint32_t c = 0; !fs && c < f->schema->num_columns && c < 16; c++) {
                floe_orc_row_index ri;
                floe_orc_bloom_index bi;
                floe_status_free(floe_orc_file_read_row_index(f, s, &sf, c, &a, &ri));
                floe_status_free(floe_orc_file_read_bloom_index(f, s, &sf, c, &a, &bi));
            }
            floe_status_free(fs);
            floe_arena_destroy(&a);
        }
        floe_orc_read_options o = {0};
        o.batch_size = 1000;
        read_rows(f, &o);
        o.row_group_filter = drop_some;
        read_rows(f, &o);
        /* the last column alone, and a predicate on the first leaf */
        if (f->schema->num_columns > 1) {
            uint32_t last = f->schema->num_columns - 1;
            floe_orc_value v = {.kind = FLOE_ORC_VAL_INT, .i = 100};
            floe_orc_predicate p = {.path = NULL, .field_id = -1, .column_id = 1,
                                    .op = FLOE_ORC_OP_LT, .values = &v, .num_values = 1};
            floe_orc_read_options o2 = {0};
            o2.column_ids = &last;
            o2.num_column_ids = 1;
            o2.batch_size = 333;
            o2.timestamp_unit = FLOE_ORC_TS_NS;
            const floe_orc_column *c1 = &f->schema->columns[1];
            if (c1->kind == FLOE_ORC_INT || c1->kind == FLOE_ORC_LONG || c1->kind == FLOE_ORC_SHORT) {
                o2.predicates = &p;
                o2.num_predicates = 1;
            }
            read_rows(f, &o2);
        }
        floe_orc_file_close(f);
    }
    floe_status_free(st);
    floe_input_close(in);
}

static void check_messages(const uint8_t *data, size_t size) {
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_orc_postscript ps;
    floe_status_free(floe_orc_decode_postscript(data, size, &ps));
    floe_orc_footer ft;
    floe_status st = floe_orc_decode_footer(data, size, &a, &ft);
    if (!st) {
        floe_orc_schema *s = NULL;
        floe_status_free(floe_orc_schema_build(&ft, &s));
        for (uint32_t i = 0; s && i < s->num_columns; i++) {
            floe_type *t = NULL;
            floe_status_free(floe_orc_column_type(&s->columns[i], FLOE_ORC_TS_US, &t));
            floe_type_release(t);
        }
        floe_orc_schema_free(s);
    }
    floe_status_free(st);
    floe_orc_metadata md;
    floe_status_free(floe_orc_decode_metadata(data, size, &a, &md));
    floe_orc_stripe_footer sf;
    floe_status_free(floe_orc_decode_stripe_footer(data, size, &a, &sf));
    floe_orc_row_index ri;
    floe_status_free(floe_orc_decode_row_index(data, size, &a, &ri));
    floe_orc_bloom_index bi;
    floe_status_free(floe_orc_decode_bloom_index(data, size, &a, &bi));
    floe_orc_stats cs;
    floe_status_free(floe_orc_decode_stats(data, size, &a, &cs));
    floe_arena_destroy(&a);
    for (int c = 0; c <= 5; c++) {
        uint8_t *out = NULL;
        size_t n;
        floe_status_free(floe_orc_decompress(c, 1 << 18, data, size, &out, &n));
        floe_free(out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* an exact-size copy so the sanitizer sees any read past the end */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    check_file(copy, size);
    check_messages(copy, size);
    free(copy);
    return 0;
}
