/*
 * fuzz_parquet_footer.c — libFuzzer target for Parquet metadata parsing.
 *
 * The input is treated, in turn, as:
 *   - a FileMetaData footer: decode, build the schema, re-encode and decode
 *     the re-encoding (which must succeed: floe reads what floe writes);
 *   - a whole Parquet file opened through an in-memory floe_input (magic,
 *     footer length, decode, schema, cross-checks), then every column
 *     chunk's byte range, ColumnIndex and OffsetIndex;
 *   - a PageHeader, ColumnIndex, OffsetIndex and BloomFilterHeader.
 *
 * Build and run (see CMakeLists.txt, option FLOE_FUZZ):
 *   CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug \
 *         -DFLOE_FUZZ=ON -DFLOE_SANITIZE=ON
 *   cmake --build build/fuzz --target fuzz_parquet_footer
 *   build/fuzz/fuzz_parquet_footer -max_total_time=30 CORPUS_DIR
 * A good seed corpus is the footers of apache/parquet-testing's files.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A decoding that succeeded must re-encode to something that decodes. */
static void check_footer(const uint8_t *data, size_t size) {
    floe_pq_file_metadata *md = NULL;
    floe_status st = floe_pq_decode_file_metadata(data, size, 0, &md);
    if (st) {
        floe_status_free(st);
        return;
    }
    floe_pq_schema *schema = NULL;
    st = floe_pq_schema_build(md, &schema);
    if (!st) {
        for (int i = 0; i < floe_pq_schema_num_columns(schema); i++) {
            const floe_pq_column *c = floe_pq_schema_column(schema, i);
            if (floe_pq_schema_find_column(schema, c->path) == NULL) abort();
        }
        floe_pq_schema_free(schema);
    }
    floe_status_free(st);

    floe_buf out = FLOE_BUF_INIT;
    st = floe_pq_encode_file_metadata(md, &out);
    if (!st) {
        floe_pq_file_metadata *md2 = NULL;
        floe_status st2 = floe_pq_decode_file_metadata(out.data, out.len, 0, &md2);
        if (st2) abort(); /* floe could not read its own encoding */
        if (md2->num_schema != md->num_schema || md2->num_row_groups != md->num_row_groups ||
            md2->num_rows != md->num_rows)
            abort();
        floe_pq_file_metadata_free(md2);
    }
    floe_status_free(st);
    floe_buf_free(&out);
    floe_pq_file_metadata_free(md);
}

static void check_file(const uint8_t *data, size_t size) {
    floe_input *in = NULL;
    floe_status st = floe_input_from_memory(data, size, "fuzz.parquet", &in);
    if (st) {
        floe_status_free(st);
        return;
    }
    floe_pq_file *f = NULL;
    st = floe_pq_file_open(in, &f);
    if (!st) {
        for (uint32_t g = 0; g < f->meta->num_row_groups && g < 4; g++) {
            for (int c = 0; c < floe_pq_schema_num_columns(f->schema) && c < 8; c++) {
                uint64_t off, len;
                floe_status_free(floe_pq_file_chunk_range(f, (int)g, c, &off, &len));
                floe_pq_column_index *ci = NULL;
                floe_pq_offset_index *oi = NULL;
                floe_status_free(floe_pq_file_read_column_index(f, (int)g, c, &ci));
                floe_status_free(floe_pq_file_read_offset_index(f, (int)g, c, &oi));
                floe_pq_column_index_free(ci);
                floe_pq_offset_index_free(oi);
            }
        }
        floe_pq_file_close(f);
    }
    floe_status_free(st);
    floe_input_close(in);
}

static void check_other_structs(const uint8_t *data, size_t size) {
    floe_pq_page_header ph;
    size_t used;
    floe_status st = floe_pq_decode_page_header(data, size, 0, &ph, &used);
    if (!st) {
        if (used > size) abort();
        floe_buf out = FLOE_BUF_INIT;
        floe_status_free(floe_pq_encode_page_header(&ph, &out));
        floe_pq_page_header back;
        floe_status st2 = floe_pq_decode_page_header(out.data, out.len, 0, &back, &used);
        if (st2) abort();
        floe_buf_free(&out);
    }
    floe_status_free(st);

    floe_pq_column_index *ci = NULL;
    floe_status_free(floe_pq_decode_column_index(data, size, 0, &ci));
    floe_pq_column_index_free(ci);
    floe_pq_offset_index *oi = NULL;
    floe_status_free(floe_pq_decode_offset_index(data, size, 0, &oi));
    floe_pq_offset_index_free(oi);
    floe_pq_bloom_filter_header bf;
    floe_status_free(floe_pq_decode_bloom_filter_header(data, size, 0, &bf, &used));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Exact-size copy so the sanitizer sees any read past the end. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    check_footer(copy, size);
    check_other_structs(copy, size);

    /* The same bytes framed as a file: PAR1 <footer> <len> PAR1. */
    size_t flen = size;
    uint8_t *file = malloc(flen + 12);
    if (file) {
        memcpy(file, "PAR1", 4);
        memcpy(file + 4, copy, flen);
        for (int i = 0; i < 4; i++) file[4 + flen + i] = (uint8_t)(flen >> (8 * i));
        memcpy(file + 8 + flen, "PAR1", 4);
        check_file(file, flen + 12);
        free(file);
    }
    /* And as a whole file as-is (exercises the magic/length checks). */
    check_file(copy, size);
    free(copy);
    return 0;
}
