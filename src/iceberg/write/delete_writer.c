/*
 * delete_writer.c — the delete files a row-level change writes: one
 * Parquet position delete file per data file (format version 2), the
 * layout Iceberg Java's writers use with write.delete.granularity=file,
 * its default since 1.8.
 *
 * A position delete file holds (file_path, pos) rows sorted by pos, all
 * naming the one data file, with the spec's reserved field ids
 * (2147483546, 2147483545), both required.  Its data_file record carries
 * content 1, referenced_data_file, and full metrics for both columns —
 * lower and upper bounds of file_path equal to the path, so every reader
 * (Java, Spark, DuckDB, floe) can tell which data file it applies to
 * without opening it.  The record's partition is all NULL: the writer
 * does not know the data file's partition (it may be of an older spec),
 * the commit gives the delete file that of the live data file it names
 * (floe_catalog_row_delta).
 *
 * Format version 3 has deletion vectors instead: one Puffin file per
 * writer holding a deletion-vector-v1 blob per data file (the positions
 * already deleted merged in by the caller, as a data file has one live
 * DV), each blob its own delete file entry (content_offset,
 * content_size_in_bytes, referenced_data_file, record_count = the DV's
 * cardinality).
 *
 * Files go to the table's data path (write.data.path, object storage
 * layout honoured), without a partition directory, named by the caller.
 */
#include <stdio.h>
#include <string.h>

#include "floe/iceberg_deletes.h"
#include "floe/memory.h"
#include "iceberg/write/data_writer_internal.h"

#define POS_FILE_PATH_ID 2147483546
#define POS_POS_ID 2147483545

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "writing a position delete file"); }

/* The (file_path, pos) schema, both required, with the reserved ids. */
static floe_status posdel_schema(floe_schema **out) {
    floe_field f[2];
    floe_status st = floe_field_init(&f[0], "file_path", floe_type_primitive(FLOE_TYPE_STRING), false,
                                     POS_FILE_PATH_ID);
    if (st) return st;
    st = floe_field_init(&f[1], "pos", floe_type_primitive(FLOE_TYPE_INT64), false, POS_POS_ID);
    if (!st) {
        st = floe_type_struct(f, 2, out);
        floe_field_clear(&f[1]);
    }
    floe_field_clear(&f[0]);
    return st;
}

/* The rows: the path n times (dictionary-encoded by the writer) and the
 * positions. */
static floe_status posdel_batch(floe_schema *schema, const char *path, const int64_t *pos, int64_t n,
                                floe_batch **out) {
    floe_builder *bp = NULL, *bq = NULL;
    floe_array *cols[2] = {NULL, NULL};
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &bp);
    if (!st) st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &bq);
    for (int64_t i = 0; !st && i < n; i++) {
        st = floe_builder_append_string(bp, path);
        if (!st) st = floe_builder_append_int64(bq, pos[i]);
    }
    if (!st) st = floe_builder_finish(bp, &cols[0]);
    if (!st) st = floe_builder_finish(bq, &cols[1]);
    if (!st) st = floe_batch_new(schema, cols, 2, n, out);
    floe_builder_free(bp);
    floe_builder_free(bq);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    return st;
}

/* A delete file's partition as the writer records it: all NULL, in the
 * default spec (the commit gives it the data file's).  *part, *ids:
 * floe_malloc'd, pointed to by f. */
static floe_status null_partition(const floe_ice_write_settings *s, floe_ice_data_file *f, floe_ice_value **part,
                                  int32_t **ids) {
    f->spec_id = s->spec_id;
    int32_t np = s->spec->n_fields;
    *part = floe_calloc((size_t)np + 1, sizeof **part);
    *ids = floe_calloc((size_t)np + 1, sizeof **ids);
    if (!*part || !*ids) {
        floe_free(*part);
        floe_free(*ids);
        return oom();
    }
    for (int32_t i = 0; i < np; i++) {
        (*ids)[i] = s->spec->fields[i].field_id;
        (*part)[i] = floe_ice_null(s->partition_type->fields[i].type->id);
    }
    f->n_partition = np;
    f->partition_ids = *ids;
    f->partition = *part;
    return NULL;
}

/* The data_file record of a written position delete file. */
static floe_status posdel_record(const floe_ice_write_settings *s, const char *location, const char *data_file_path,
                                 const int64_t *pos, int64_t n, const floe_pq_write_result *r, uint8_t **rec,
                                 size_t *len) {
    floe_ice_data_file f;
    floe_ice_data_file_init(&f);
    f.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    f.file_path = location;
    f.file_format = "PARQUET";
    floe_ice_value *part = NULL;
    int32_t *part_ids = NULL;
    FLOE_TRY(null_partition(s, &f, &part, &part_ids));
    f.record_count = n;
    f.file_size_in_bytes = r->file_size;
    f.n_split_offsets = r->n_row_groups;
    f.split_offsets = r->split_offsets;
    f.referenced_data_file = data_file_path;
    /* Full metrics of both columns, as Java's MetricsConfig.forPositionDelete. */
    int32_t keys[2] = {POS_FILE_PATH_ID, POS_POS_ID};
    int64_t sizes[2] = {0, 0}, counts[2] = {n, n}, nulls[2] = {0, 0};
    for (int32_t c = 0; c < r->n_columns; c++)
        for (int k = 0; k < 2; k++)
            if (r->columns[c].field_id == keys[k]) sizes[k] = r->columns[c].compressed_size;
    uint8_t lo[8], hi[8];
    for (int b = 0; b < 8; b++) {
        lo[b] = (uint8_t)((uint64_t)pos[0] >> (8 * b));
        hi[b] = (uint8_t)((uint64_t)pos[n - 1] >> (8 * b));
    }
    const uint8_t *lows[2] = {(const uint8_t *)data_file_path, lo}, *highs[2] = {(const uint8_t *)data_file_path, hi};
    uint32_t blen[2] = {(uint32_t)strlen(data_file_path), 8};
    f.column_sizes = (floe_ice_count_map){2, keys, sizes};
    f.value_counts = (floe_ice_count_map){2, keys, counts};
    f.null_value_counts = (floe_ice_count_map){2, keys, nulls};
    f.lower_bounds = (floe_ice_bound_map){2, keys, lows, blen};
    f.upper_bounds = (floe_ice_bound_map){2, keys, highs, blen};
    floe_status st = floe_ice_data_file_encode(s->df_codec, &f, rec, len);
    floe_free(part);
    floe_free(part_ids);
    return st;
}

floe_status floe_ice_write_position_deletes(floe_fileio *io, const floe_ice_write_settings *s,
                                            const char *data_file_path, const int64_t *pos, int64_t n,
                                            const char *filename, const floe_ice_file_observer *observer,
                                            floe_ice_written_files *out) {
    if (!io || !s || !data_file_path || !pos || n <= 0 || !filename || !out)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "position delete file: bad arguments");
    if (s->format_version < 2)
        return floe_error(FLOE_ERR_UNSUPPORTED, "table %s: format version 1 tables have no delete files",
                          s->table_location);
    for (int64_t i = 1; i < n; i++)
        if (pos[i] <= pos[i - 1])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "position deletes of %s are not sorted and distinct",
                              data_file_path);
    char *loc = NULL;
    FLOE_TRY(floe_ice_data_file_location(s, NULL, filename, &loc));
    if (observer && observer->created) observer->created(observer->arg, loc);
    floe_schema *schema = NULL;
    floe_batch *rows = NULL;
    floe_pq_writer *pw = NULL;
    floe_pq_write_result *r = NULL;
    floe_output *o = NULL;
    uint8_t *rec = NULL;
    size_t len = 0;
    floe_pq_write_options opts;
    floe_pq_write_options_init(&opts);
    opts.codec = s->codec;
    opts.level = s->level;
    opts.row_group_bytes = s->row_group_bytes;
    opts.page_bytes = s->page_bytes;
    opts.page_rows = s->page_rows;
    opts.dictionary = true;
    opts.data_page_v2 = s->data_page_v2;
    floe_status st = posdel_schema(&schema);
    if (!st) st = posdel_batch(schema, data_file_path, pos, n, &rows);
    if (!st) st = floe_fileio_create_output(io, loc, 0, &o);
    if (!st) st = floe_pq_writer_open(o, schema, &opts, &pw); /* owns o from here */
    if (!st) st = floe_pq_writer_write(pw, rows);
    if (!st) {
        floe_pq_writer *w = pw;
        pw = NULL;
        st = floe_pq_writer_close(w, &r);
    }
    if (!st) st = posdel_record(s, loc, data_file_path, pos, n, r, &rec, &len);
    if (!st) st = floe_ice_written_files_append(out, rec, len, loc, n, r->file_size);
    if (st) {
        floe_pq_writer_abort(pw);
        floe_free(rec);
        floe_status_free(floe_fileio_delete(io, loc));
        st = floe_status_wrap(st, "writing position delete file %s", loc);
        floe_free(loc);
    }
    floe_pq_write_result_free(r);
    floe_batch_release(rows);
    floe_type_release(schema);
    return st;
}

/* ---- deletion vectors (format version 3) ------------------------------------ */

/* The data_file record of one DV blob. */
static floe_status dv_record(const floe_ice_write_settings *s, const char *location, const floe_ice_dv_input *dv,
                             int64_t offset, int64_t length, int64_t file_size, uint8_t **rec, size_t *len) {
    floe_ice_data_file f;
    floe_ice_data_file_init(&f);
    f.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    f.file_path = location;
    f.file_format = "PUFFIN";
    floe_ice_value *part = NULL;
    int32_t *part_ids = NULL;
    FLOE_TRY(null_partition(s, &f, &part, &part_ids));
    f.record_count = dv->n; /* a DV's cardinality */
    f.file_size_in_bytes = file_size;
    f.referenced_data_file = dv->data_file_path;
    f.has_content_offset = true;
    f.content_offset = offset;
    f.has_content_size_in_bytes = true;
    f.content_size_in_bytes = length;
    floe_status st = floe_ice_data_file_encode(s->df_codec, &f, rec, len);
    floe_free(part);
    floe_free(part_ids);
    return st;
}

floe_status floe_ice_write_deletion_vectors(floe_fileio *io, const floe_ice_write_settings *s,
                                            const floe_ice_dv_input *dvs, int32_t n, const char *filename,
                                            const floe_ice_file_observer *observer, floe_ice_written_files *out) {
    if (!io || !s || (n > 0 && !dvs) || n < 0 || !filename || !out)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "deletion vectors: bad arguments");
    if (n == 0) return NULL;
    if (s->format_version < 3)
        return floe_error(FLOE_ERR_UNSUPPORTED, "table %s: deletion vectors need format version 3",
                          s->table_location);
    char *loc = NULL;
    FLOE_TRY(floe_ice_data_file_location(s, NULL, filename, &loc));
    if (observer && observer->created) observer->created(observer->arg, loc);
    int64_t *offsets = floe_calloc((size_t)n, sizeof *offsets), *lengths = floe_calloc((size_t)n, sizeof *lengths);
    floe_output *o = NULL;
    floe_ice_puffin_writer *pw = NULL;
    floe_status st = offsets && lengths ? NULL : oom();
    if (!st) st = floe_fileio_create_output(io, loc, 0, &o);
    if (!st) st = floe_ice_puffin_writer_open(o, &pw);
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_ice_dv_input *dv = &dvs[i];
        uint8_t *blob = NULL;
        size_t blen = 0;
        char card[24];
        snprintf(card, sizeof card, "%lld", (long long)dv->n);
        const char *keys[2] = {"referenced-data-file", "cardinality"}, *vals[2] = {dv->data_file_path, card};
        floe_ice_puffin_blob_spec spec = {"deletion-vector-v1", NULL, 0, -1, -1, NULL, 2, keys, vals};
        st = floe_ice_dv_serialize(dv->positions, (size_t)dv->n, &blob, &blen);
        if (!st) st = floe_ice_puffin_writer_add(pw, &spec, blob, blen, &offsets[i], &lengths[i]);
        floe_free(blob);
    }
    if (!st) {
        floe_ice_puffin_writer *w = pw;
        pw = NULL;
        st = floe_ice_puffin_writer_finish(w, false);
    }
    int64_t size = o ? (int64_t)o->bytes_written : 0;
    if (!st) {
        floe_output *x = o;
        o = NULL;
        st = floe_output_close(x);
    }
    for (int32_t i = 0; !st && i < n; i++) {
        uint8_t *rec = NULL;
        size_t len = 0;
        char *l = floe_strdup(loc);
        if (!l) st = oom();
        if (!st) st = dv_record(s, loc, &dvs[i], offsets[i], lengths[i], size, &rec, &len);
        if (!st) st = floe_ice_written_files_append(out, rec, len, l, dvs[i].n, size);
        if (st) {
            floe_free(rec);
            floe_free(l);
        }
    }
    if (st) {
        floe_ice_puffin_writer_abort(pw);
        if (o) floe_output_abort(o);
        floe_status_free(floe_fileio_delete(io, loc));
        st = floe_status_wrap(st, "writing deletion vectors %s", loc);
    }
    floe_free(loc);
    floe_free(offsets);
    floe_free(lengths);
    return st;
}
