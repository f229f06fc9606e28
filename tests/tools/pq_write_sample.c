/*
 * pq_write_sample.c — test tool: write the sample table of pq_sample_data.h
 * with floe's Parquet writer, for peers (DuckDB) to read back.
 *
 * usage: pq_write_sample OUT.parquet [options]
 *   --rows N          rows (default 10000)
 *   --batch N         rows per batch handed to the writer (default 1000)
 *   --codec NAME      none|snappy|gzip|zstd|lz4_raw|brotli (default zstd)
 *   --level N         codec level
 *   --rg-rows N       row group rows (default 3000)
 *   --page-rows N     page rows (default 700)
 *   --dict-bytes N    dictionary limit (default 2 MiB)
 *   --no-dict         PLAIN everywhere
 *   --delta           DELTA_BINARY_PACKED for i32, i64, ts
 *   --rle-bool        RLE for the boolean column
 *   --no-page-index   omit ColumnIndex/OffsetIndex
 *   --v2              DATA_PAGE_V2 pages
 *   --legacy-dict     PLAIN_DICTIONARY encodings
 *   --no-crc          no page CRCs
 *   --bloom           Bloom filters on i32, i64, d38, s, fx, u
 * Prints a one-line summary (rows, row groups, file size) on success.
 * Not installed; built for the script tests only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/fileio.h"
#include "formats/parquet/writer.h"
#include "pq_sample_data.h"

static int fail(floe_status st) {
    fprintf(stderr, "pq_write_sample: %s\n", floe_status_message(st));
    floe_status_free(st);
    return 1;
}

static floe_codec parse_codec(const char *s) {
    if (!strcmp(s, "none")) return FLOE_CODEC_NONE;
    if (!strcmp(s, "snappy")) return FLOE_CODEC_SNAPPY;
    if (!strcmp(s, "gzip")) return FLOE_CODEC_GZIP;
    if (!strcmp(s, "lz4_raw")) return FLOE_CODEC_LZ4_RAW;
    if (!strcmp(s, "brotli")) return FLOE_CODEC_BROTLI;
    return FLOE_CODEC_ZSTD;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: pq_write_sample OUT.parquet [options]\n");
        return 2;
    }
    const char *path = argv[1];
    int64_t rows = 10000, batch = 1000;
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = 3000;
    o.page_rows = 700;
    floe_pq_column_option cols[16];
    int32_t ncols = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--rows")) rows = atoll(v), i++;
        else if (!strcmp(a, "--batch")) batch = atoll(v), i++;
        else if (!strcmp(a, "--codec")) o.codec = parse_codec(v), i++;
        else if (!strcmp(a, "--level")) o.level = atoi(v), i++;
        else if (!strcmp(a, "--rg-rows")) o.row_group_rows = atoll(v), i++;
        else if (!strcmp(a, "--page-rows")) o.page_rows = atoll(v), i++;
        else if (!strcmp(a, "--dict-bytes")) o.dict_bytes = atoll(v), i++;
        else if (!strcmp(a, "--no-dict")) o.dictionary = false;
        else if (!strcmp(a, "--no-page-index")) o.write_page_index = false;
        else if (!strcmp(a, "--v2")) o.data_page_v2 = true;
        else if (!strcmp(a, "--legacy-dict")) o.legacy_dictionary = true;
        else if (!strcmp(a, "--no-crc")) o.page_crc = false;
        else if (!strcmp(a, "--delta")) {
            cols[ncols++] = (floe_pq_column_option){3, NULL, FLOE_PQ_WENC_DELTA_BINARY_PACKED, false};
            cols[ncols++] = (floe_pq_column_option){4, NULL, FLOE_PQ_WENC_DELTA_BINARY_PACKED, false};
            cols[ncols++] = (floe_pq_column_option){-1, "ts", FLOE_PQ_WENC_DELTA_BINARY_PACKED, false};
        } else if (!strcmp(a, "--bloom")) {
            const int32_t ids[] = {3, 4, 9, 15, 17, 18};
            for (int k = 0; k < 6; k++)
                cols[ncols++] = (floe_pq_column_option){ids[k], NULL, FLOE_PQ_WENC_DEFAULT, true};
        } else if (!strcmp(a, "--rle-bool")) {
            cols[ncols++] = (floe_pq_column_option){2, NULL, FLOE_PQ_WENC_RLE, false};
        } else {
            fprintf(stderr, "pq_write_sample: unknown option %s\n", a);
            return 2;
        }
    }
    o.columns = cols;
    o.n_columns = ncols;
    floe_pq_kv kv[] = {{"floe.sample", "pq_write_sample"}, {"iceberg.schema", "{}"}};
    o.kv = kv;
    o.n_kv = 2;

    floe_schema *schema = NULL;
    floe_status st = pq_sample_schema(&schema);
    if (st) return fail(st);
    floe_output *out = NULL;
    st = floe_output_create_local(path, 1, &out);
    floe_pq_writer *w = NULL;
    if (!st) st = floe_pq_writer_open(out, schema, &o, &w);
    for (int64_t r = 0; !st && r < rows; r += batch) {
        floe_batch *b = NULL;
        st = pq_sample_batch(schema, r, rows - r < batch ? rows - r : batch, &b);
        if (!st) st = floe_pq_writer_write(w, b);
        floe_batch_release(b);
    }
    floe_pq_write_result *res = NULL;
    if (!st) {
        st = floe_pq_writer_close(w, &res);
        w = NULL;
    }
    floe_pq_writer_abort(w);
    floe_type_release(schema);
    if (st) return fail(st);
    printf("wrote %s: %lld rows, %d row groups, %lld bytes\n", path,
           (long long)res->record_count, res->n_row_groups, (long long)res->file_size);
    floe_pq_write_result_free(res);
    return 0;
}
