/*
 * column_seek.c — positioning column readers at a row group from the
 * ROW_INDEX streams (see floe_orc_col_seek in column_reader.h).
 *
 * Each RowIndexEntry lists, for the column's streams in the order of the
 * specification's encoding tables, where the row group starts: the
 * decompressed byte offset (as compressed chunk start + offset within the
 * chunk when the file is compressed) and, for run-length encoded streams,
 * how many values of the run at that offset come before it (booleans: how
 * many bytes of the byte run, then how many bits).  A PRESENT stream's
 * positions come first, and only when the stripe has that stream.
 * Dictionary streams are read whole at stripe start and have none.  A
 * position list that does not fit exactly (too short, too long, an offset
 * outside its stream or not at a chunk start) makes *ok false, and the
 * caller reads the stripe sequentially instead: a seek is never guessed.
 */
#include "formats/orc/column_reader.h"

typedef struct cursor {
    const uint64_t *p;
    size_t n, i;
} cursor;

static bool take(cursor *c, uint64_t *v) {
    if (c->i >= c->n) return false;
    *v = c->p[c->i++];
    return true;
}

/* The decompressed offset the next position(s) name in stream b. */
static bool stream_offset(const floe_orc_col_reader *r, const floe_orc_stream_buf *b, cursor *c,
                          size_t *off) {
    bool compressed = r->ss->file->ps.compression != FLOE_ORC_COMP_NONE;
    uint64_t a, u = 0;
    if (!take(c, &a) || (compressed && !take(c, &u))) return false;
    if (!b) { /* a stream the stripe does not have: only "the start" fits */
        *off = 0;
        return a == 0 && u == 0;
    }
    uint64_t o = a;
    if (compressed) {
        size_t lo = 0, hi = b->num_chunks;
        while (lo < hi) { /* the chunk starting at compressed offset a */
            size_t mid = (lo + hi) / 2;
            if (b->chunks[mid].compressed < a) lo = mid + 1;
            else hi = mid;
        }
        if (lo >= b->num_chunks || b->chunks[lo].compressed != a) return false;
        o = b->chunks[lo].decompressed + u;
        if (lo + 1 < b->num_chunks && o > b->chunks[lo + 1].decompressed) return false;
    }
    if (o > b->len) return false;
    *off = (size_t)o;
    return true;
}

static const floe_orc_stream_buf *stream(const floe_orc_col_reader *r, int kind) {
    return floe_orc_stripe_stream(r->ss, r->col->id, kind);
}

static floe_status seek_ints(floe_orc_col_reader *r, floe_orc_int_rle *rle, int kind, cursor *c,
                             bool *ok) {
    const floe_orc_stream_buf *b = stream(r, kind);
    size_t off;
    uint64_t skip;
    if (!stream_offset(r, b, c, &off) || !take(c, &skip)) return *ok = false, NULL;
    floe_orc_int_rle_init(rle, b ? b->data + off : (const uint8_t *)"", b ? b->len - off : 0, rle->v2,
                          rle->is_signed);
    return floe_orc_int_rle_skip(rle, (size_t)skip);
}

static floe_status seek_bytes(floe_orc_col_reader *r, floe_orc_byte_rle *rle, cursor *c, bool *ok) {
    const floe_orc_stream_buf *b = stream(r, FLOE_ORC_S_DATA);
    size_t off;
    uint64_t skip;
    if (!stream_offset(r, b, c, &off) || !take(c, &skip)) return *ok = false, NULL;
    floe_orc_byte_rle_init(rle, b ? b->data + off : (const uint8_t *)"", b ? b->len - off : 0);
    return floe_orc_byte_rle_skip(rle, (size_t)skip);
}

static floe_status seek_bools(floe_orc_col_reader *r, floe_orc_bool_rle *rle, int kind, cursor *c,
                              bool *ok) {
    const floe_orc_stream_buf *b = stream(r, kind);
    size_t off;
    uint64_t bytes, bits;
    if (!stream_offset(r, b, c, &off) || !take(c, &bytes) || !take(c, &bits) || bits > 7)
        return *ok = false, NULL;
    floe_orc_bool_rle_init(rle, b ? b->data + off : (const uint8_t *)"", b ? b->len - off : 0);
    FLOE_TRY(floe_orc_byte_rle_skip(&rle->bytes, (size_t)bytes));
    return bits ? floe_orc_bool_rle_skip(rle, (size_t)bits) : NULL;
}

static void seek_raw(floe_orc_col_reader *r, cursor *c, bool *ok) {
    const floe_orc_stream_buf *b = stream(r, FLOE_ORC_S_DATA);
    size_t off;
    if (!stream_offset(r, b, c, &off)) {
        *ok = false;
        return;
    }
    if (b) r->data = b->data + off;
}

static floe_status seek_one(floe_orc_col_reader *r, cursor *c, bool *ok) {
    if (r->has_present) FLOE_TRY(seek_bools(r, &r->present, FLOE_ORC_S_PRESENT, c, ok));
    bool dict = r->encoding == FLOE_ORC_ENC_DICTIONARY || r->encoding == FLOE_ORC_ENC_DICTIONARY_V2;
    if (!*ok) return NULL;
    switch (r->col->kind) {
    case FLOE_ORC_BOOLEAN: return seek_bools(r, &r->bools, FLOE_ORC_S_DATA, c, ok);
    case FLOE_ORC_BYTE:
    case FLOE_ORC_UNION: return seek_bytes(r, &r->bytes, c, ok);
    case FLOE_ORC_SHORT:
    case FLOE_ORC_INT:
    case FLOE_ORC_LONG:
    case FLOE_ORC_DATE: return seek_ints(r, &r->ints, FLOE_ORC_S_DATA, c, ok);
    case FLOE_ORC_FLOAT:
    case FLOE_ORC_DOUBLE: seek_raw(r, c, ok); return NULL;
    case FLOE_ORC_STRING:
    case FLOE_ORC_VARCHAR:
    case FLOE_ORC_CHAR:
    case FLOE_ORC_BINARY:
        if (dict) return seek_ints(r, &r->ints, FLOE_ORC_S_DATA, c, ok);
        seek_raw(r, c, ok);
        return *ok ? seek_ints(r, &r->lengths, FLOE_ORC_S_LENGTH, c, ok) : NULL;
    case FLOE_ORC_TIMESTAMP:
    case FLOE_ORC_TIMESTAMP_INSTANT:
        FLOE_TRY(seek_ints(r, &r->ints, FLOE_ORC_S_DATA, c, ok));
        return *ok ? seek_ints(r, &r->secondary, FLOE_ORC_S_SECONDARY, c, ok) : NULL;
    case FLOE_ORC_DECIMAL:
        if (r->decimal64) return seek_ints(r, &r->ints, FLOE_ORC_S_DATA, c, ok);
        seek_raw(r, c, ok);
        return *ok ? seek_ints(r, &r->secondary, FLOE_ORC_S_SECONDARY, c, ok) : NULL;
    case FLOE_ORC_LIST:
    case FLOE_ORC_MAP: return seek_ints(r, &r->lengths, FLOE_ORC_S_LENGTH, c, ok);
    default: return NULL; /* struct: PRESENT only */
    }
}

floe_status floe_orc_col_seek(floe_orc_col_reader *r, const floe_orc_row_index *const *index,
                              size_t g, bool *ok) {
    *ok = true;
    const floe_orc_row_index *ri = index[r->col->id];
    if (!ri || g >= ri->num_entries) return *ok = false, NULL;
    const floe_orc_index_entry *e = &ri->entries[g];
    cursor c = {e->positions, e->num_positions, 0};
    floe_status st = seek_one(r, &c, ok);
    if (st) return floe_orc_col_error(r, "seeking to a row group", st);
    if (*ok && c.i != c.n) *ok = false; /* positions this reader does not understand */
    for (int i = 0; *ok && i < r->num_children; i++)
        FLOE_TRY(floe_orc_col_seek(r->children[i], index, g, ok));
    return NULL;
}
