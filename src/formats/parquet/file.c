/*
 * file.c — open a Parquet file and reach its metadata (see file.h).
 */
#include "formats/parquet/file.h"

#include <inttypes.h>
#include <string.h>

#include "floe/memory.h"

static floe_status oom(const floe_pq_file *f) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "'%s': out of memory reading the footer",
                      f->path);
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static floe_status encrypted(const floe_pq_file *f, const char *how) {
    return floe_error(FLOE_ERR_UNSUPPORTED, "'%s': encrypted Parquet is not supported (%s)",
                      f->path, how);
}

/* Read the footer and decode it into f->meta. */
static floe_status read_footer(floe_pq_file *f) {
    uint64_t size = f->size;
    if (size < 12)
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s': %" PRIu64 " bytes is too small for a Parquet file (at least "
                          "12)", f->path, size);
    size_t tail_len = size < FLOE_PQ_FOOTER_SPECULATIVE_READ ? (size_t)size
                                                            : FLOE_PQ_FOOTER_SPECULATIVE_READ;
    uint64_t tail_off = size - tail_len;
    uint8_t *tail = floe_malloc(tail_len);
    if (!tail) return oom(f);
    floe_status st = floe_input_read(f->in, tail_off, tail_len, tail);
    if (st) goto done;

    const uint8_t *end = tail + tail_len;
    if (memcmp(end - 4, "PARE", 4) == 0) {
        st = encrypted(f, "encrypted footer, PARE magic");
        goto done;
    }
    if (memcmp(end - 4, "PAR1", 4) != 0) {
        st = floe_error(FLOE_ERR_CORRUPT, "'%s': no PAR1 magic at offset %" PRIu64
                        " (not a Parquet file, or truncated)", f->path, size - 4);
        goto done;
    }
    uint8_t head[4];
    if (tail_off == 0) memcpy(head, tail, 4);
    else if ((st = floe_input_read(f->in, 0, 4, head))) goto done;
    if (memcmp(head, "PAR1", 4) != 0) {
        st = floe_error(FLOE_ERR_CORRUPT, "'%s': no PAR1 magic at offset 0", f->path);
        goto done;
    }

    uint32_t flen = le32(end - 8);
    if ((uint64_t)flen > size - 12) {
        st = floe_error(FLOE_ERR_CORRUPT,
                        "'%s': footer length %" PRIu32 " at offset %" PRIu64
                        " exceeds the file (%" PRIu64 " bytes)", f->path, flen, size - 8, size);
        goto done;
    }
    f->footer_len = flen;
    f->footer_offset = size - 8 - flen;

    const uint8_t *footer;
    uint8_t *big = NULL;
    if (f->footer_offset >= tail_off) {
        footer = tail + (f->footer_offset - tail_off);
    } else {
        /* A footer larger than the speculative read: fetch all of it. */
        big = floe_malloc(flen ? flen : 1);
        if (!big) {
            st = oom(f);
            goto done;
        }
        if ((st = floe_input_read(f->in, f->footer_offset, flen, big))) {
            floe_free(big);
            goto done;
        }
        footer = big;
    }
    st = floe_pq_decode_file_metadata(footer, flen, f->footer_offset, &f->meta);
    floe_free(big);
    if (st) st = floe_status_wrap(st, "'%s': footer at offset %" PRIu64, f->path,
                                  f->footer_offset);
done:
    floe_free(tail);
    return st;
}

/* Cross-check the footer: encryption, column counts, types. */
static floe_status check_metadata(floe_pq_file *f) {
    const floe_pq_file_metadata *md = f->meta;
    if (md->has_encryption_algorithm) return encrypted(f, "plaintext footer of an encrypted file");
    int ncols = floe_pq_schema_num_columns(f->schema);
    for (uint32_t g = 0; g < md->num_row_groups; g++) {
        const floe_pq_row_group *rg = &md->row_groups[g];
        for (uint32_t c = 0; c < rg->num_columns; c++)
            if (rg->columns[c].encrypted) return encrypted(f, "encrypted column metadata");
        if ((int)rg->num_columns != ncols)
            return floe_error(FLOE_ERR_CORRUPT,
                              "'%s': row group %" PRIu32 " has %" PRIu32
                              " column chunks but the schema has %d columns (footer at "
                              "offset %" PRIu64 ")",
                              f->path, g, rg->num_columns, ncols, f->footer_offset);
        for (uint32_t c = 0; c < rg->num_columns; c++) {
            const floe_pq_column_chunk *cc = &rg->columns[c];
            const floe_pq_column *col = floe_pq_schema_column(f->schema, (int)c);
            if (!cc->has_meta_data)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "'%s': row group %" PRIu32 " column '%s' has no "
                                  "ColumnMetaData (footer at offset %" PRIu64 ")",
                                  f->path, g, col->path, f->footer_offset);
            if (cc->meta_data.type != col->physical)
                return floe_error(FLOE_ERR_CORRUPT,
                                  "'%s': row group %" PRIu32 " column '%s' is %s but the "
                                  "schema says %s (footer at offset %" PRIu64 ")",
                                  f->path, g, col->path,
                                  floe_pq_type_name(cc->meta_data.type),
                                  floe_pq_type_name(col->physical), f->footer_offset);
        }
    }
    return NULL;
}

floe_status floe_pq_file_open(floe_input *in, floe_pq_file **out) {
    *out = NULL;
    floe_pq_file *f = floe_calloc(1, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "'%s': out of memory", in->path);
    f->in = in;
    f->path = in->path ? in->path : "(input)";
    f->size = in->size;
    floe_status st = read_footer(f);
    /* A plaintext footer of an encrypted file may not even give a usable
     * schema; say "encrypted" before anything else. */
    if (!st && f->meta->has_encryption_algorithm)
        st = encrypted(f, "plaintext footer of an encrypted file");
    if (!st) {
        st = floe_pq_schema_build(f->meta, &f->schema);
        if (st) st = floe_status_wrap(st, "'%s': footer at offset %" PRIu64, f->path,
                                      f->footer_offset);
    }
    if (!st) st = check_metadata(f);
    if (st) {
        floe_pq_file_close(f);
        return st;
    }
    *out = f;
    return NULL;
}

floe_status floe_pq_file_open_path(const char *path, floe_pq_file **out) {
    *out = NULL;
    floe_input *in;
    FLOE_TRY(floe_input_open_local(path, &in));
    floe_status st = floe_pq_file_open(in, out);
    if (st) {
        floe_input_close(in);
        return st;
    }
    (*out)->owns_input = true;
    return NULL;
}

void floe_pq_file_close(floe_pq_file *f) {
    if (!f) return;
    floe_pq_schema_free(f->schema);
    floe_pq_file_metadata_free(f->meta);
    if (f->owns_input) floe_input_close(f->in);
    floe_free(f);
}

const floe_pq_column_chunk *floe_pq_file_chunk(const floe_pq_file *f, int row_group,
                                                int column) {
    if (row_group < 0 || (uint32_t)row_group >= f->meta->num_row_groups) return NULL;
    const floe_pq_row_group *rg = &f->meta->row_groups[row_group];
    if (column < 0 || (uint32_t)column >= rg->num_columns) return NULL;
    return &rg->columns[column];
}

static floe_status get_chunk(const floe_pq_file *f, int row_group, int column,
                             const floe_pq_column_chunk **cc) {
    *cc = floe_pq_file_chunk(f, row_group, column);
    if (!*cc)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "'%s': no column chunk %d in row group %d", f->path, column,
                          row_group);
    return NULL;
}

/* A byte range [off, off+len) must lie inside the data area of the file. */
static floe_status check_range(const floe_pq_file *f, const char *what, int row_group,
                               int column, int64_t off, int64_t len) {
    if (off < 4 || len < 0 || (uint64_t)off > f->footer_offset ||
        (uint64_t)len > f->footer_offset - (uint64_t)off)
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s': row group %d column %d: %s at offset %" PRId64
                          " length %" PRId64 " is outside the data (footer at offset %" PRIu64
                          ")", f->path, row_group, column, what, off, len, f->footer_offset);
    return NULL;
}

floe_status floe_pq_file_chunk_range(const floe_pq_file *f, int row_group, int column,
                                     uint64_t *offset, uint64_t *length) {
    const floe_pq_column_chunk *cc;
    FLOE_TRY(get_chunk(f, row_group, column, &cc));
    if (cc->file_path)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "'%s': row group %d column %d is stored in another file ('%s')",
                          f->path, row_group, column, cc->file_path);
    const floe_pq_column_meta *m = &cc->meta_data;
    int64_t start = m->data_page_offset;
    /* Some writers record a dictionary offset of 0 when there is none. */
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    FLOE_TRY(check_range(f, "column chunk", row_group, column, start,
                         m->total_compressed_size));
    *offset = (uint64_t)start;
    *length = (uint64_t)m->total_compressed_size;
    return NULL;
}

/* Read [off, off+len) of the file into a new buffer. */
static floe_status read_range(const floe_pq_file *f, int64_t off, int32_t len, uint8_t **out) {
    *out = floe_malloc(len ? (size_t)len : 1);
    if (!*out) return oom(f);
    floe_status st = floe_input_read(f->in, (uint64_t)off, (size_t)len, *out);
    if (st) {
        floe_free(*out);
        *out = NULL;
    }
    return st;
}

floe_status floe_pq_file_read_column_index(const floe_pq_file *f, int row_group, int column,
                                           floe_pq_column_index **out) {
    *out = NULL;
    const floe_pq_column_chunk *cc;
    FLOE_TRY(get_chunk(f, row_group, column, &cc));
    if (!cc->has_column_index) return NULL;
    FLOE_TRY(check_range(f, "column index", row_group, column, cc->column_index_offset,
                         cc->column_index_length));
    uint8_t *buf;
    FLOE_TRY(read_range(f, cc->column_index_offset, cc->column_index_length, &buf));
    floe_status st = floe_pq_decode_column_index(buf, (size_t)cc->column_index_length,
                                                 (uint64_t)cc->column_index_offset, out);
    floe_free(buf);
    return floe_status_wrap(st, "'%s': row group %d column %d", f->path, row_group, column);
}

floe_status floe_pq_file_read_offset_index(const floe_pq_file *f, int row_group, int column,
                                           floe_pq_offset_index **out) {
    *out = NULL;
    const floe_pq_column_chunk *cc;
    FLOE_TRY(get_chunk(f, row_group, column, &cc));
    if (!cc->has_offset_index) return NULL;
    FLOE_TRY(check_range(f, "offset index", row_group, column, cc->offset_index_offset,
                         cc->offset_index_length));
    uint8_t *buf;
    FLOE_TRY(read_range(f, cc->offset_index_offset, cc->offset_index_length, &buf));
    floe_status st = floe_pq_decode_offset_index(buf, (size_t)cc->offset_index_length,
                                                 (uint64_t)cc->offset_index_offset, out);
    floe_free(buf);
    return floe_status_wrap(st, "'%s': row group %d column %d", f->path, row_group, column);
}
