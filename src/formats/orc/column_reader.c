/*
 * column_reader.c — the column reader tree: setup per stripe, validity,
 * fixed-width primitives and the nested types (see column_reader.h).
 * Strings, timestamps and decimals are in column_values.c.
 */
#include "formats/orc/column_reader.h"

#include <inttypes.h>
#include <string.h>

#include "floe/memory.h"

const floe_orc_stream_buf *floe_orc_stripe_stream(const floe_orc_stripe_streams *s, uint32_t col,
                                                  int kind) {
    for (size_t i = 0; i < s->num_bufs; i++)
        if (s->bufs[i].column == col && s->bufs[i].kind == kind) return &s->bufs[i];
    return NULL;
}

floe_status floe_orc_col_error(const floe_orc_col_reader *r, const char *stream, floe_status st) {
    if (!st) return NULL;
    const floe_orc_stripe_streams *s = r->ss;
    /* "DATA stream ..." names a kind: say so when the stripe has none */
    const char *absent = "";
    for (int k = 0; stream && k <= FLOE_ORC_S_SECONDARY; k++) {
        const char *name = floe_orc_stream_kind_name(k);
        size_t n = strlen(name);
        if (!strncmp(stream, name, n) && stream[n] == ' ' && !floe_orc_stripe_stream(s, r->col->id, k))
            absent = " (the stripe has no such stream)";
    }
    return floe_status_wrap(st, "'%s': stripe %zu: column %u '%s' (%s, %s)%s%s%s", s->file->path,
                            s->stripe, r->col->id, r->col->path, floe_orc_kind_name(r->col->kind),
                            floe_orc_encoding_name(r->encoding), stream ? ": " : "",
                            stream ? stream : "", absent);
}

floe_status floe_orc_col_scratch(floe_orc_col_reader *r, size_t n) {
    if (r->scratch && n <= r->scratch_cap) return NULL;
    size_t cap = n < 1024 ? 1024 : n;
    int64_t *p = floe_realloc(r->scratch, cap * sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->scratch = p;
    r->scratch_cap = cap;
    return NULL;
}

static floe_status bits_scratch(floe_orc_col_reader *r, size_t nbits) {
    size_t bytes = nbits / 8 + 8;
    if (r->bits && bytes <= r->bits_cap) return NULL;
    uint8_t *p = floe_realloc(r->bits, bytes);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->bits = p;
    r->bits_cap = bytes;
    return NULL;
}

/* ------------------------------------------------------------- setup */

static bool encoding_ok(int kind, int enc) {
    switch (kind) {
    case FLOE_ORC_STRING:
    case FLOE_ORC_VARCHAR:
    case FLOE_ORC_CHAR: return true;
    case FLOE_ORC_BOOLEAN:
    case FLOE_ORC_BYTE:
    case FLOE_ORC_FLOAT:
    case FLOE_ORC_DOUBLE:
    case FLOE_ORC_STRUCT:
    case FLOE_ORC_UNION: return enc == FLOE_ORC_ENC_DIRECT || enc == FLOE_ORC_ENC_DIRECT_V2;
    default: return enc == FLOE_ORC_ENC_DIRECT || enc == FLOE_ORC_ENC_DIRECT_V2;
    }
}

static const floe_orc_stream_buf *stream(const floe_orc_col_reader *r, int kind) {
    return floe_orc_stripe_stream(r->ss, r->col->id, kind);
}

static void init_ints(floe_orc_int_rle *rle, const floe_orc_stream_buf *b, bool v2, bool sign) {
    floe_orc_int_rle_init(rle, b ? b->data : (const uint8_t *)"", b ? b->len : 0, v2, sign);
}

floe_status floe_orc_col_reader_new(const floe_orc_stripe_streams *ss, const floe_orc_column *col,
                                    const bool *include, floe_type *type,
                                    floe_orc_col_reader **out) {
    *out = NULL;
    floe_orc_col_reader *r = floe_calloc(1, sizeof *r);
    if (!r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    r->col = col;
    r->ss = ss;
    r->type = floe_type_retain(type);
    r->encoding = ss->footer->encodings[col->id].kind;
    floe_status st = NULL;
    if (!encoding_ok(col->kind, r->encoding)) {
        st = floe_orc_col_error(r, NULL, floe_error(FLOE_ERR_CORRUPT, "encoding %s is not valid for %s",
                                                     floe_orc_encoding_name(r->encoding),
                                                     floe_orc_kind_name(col->kind)));
        goto fail;
    }
    bool v2 = r->encoding == FLOE_ORC_ENC_DIRECT_V2 || r->encoding == FLOE_ORC_ENC_DICTIONARY_V2;
    const floe_orc_stream_buf *pres = stream(r, FLOE_ORC_S_PRESENT);
    if (pres) {
        r->has_present = true;
        floe_orc_bool_rle_init(&r->present, pres->data, pres->len);
    }
    const floe_orc_stream_buf *data = stream(r, FLOE_ORC_S_DATA);
    const floe_orc_stream_buf *len = stream(r, FLOE_ORC_S_LENGTH);
    const floe_orc_stream_buf *sec = stream(r, FLOE_ORC_S_SECONDARY);
    r->data = data ? data->data : (const uint8_t *)"";
    r->data_end = r->data + (data ? data->len : 0);
    switch (col->kind) {
    case FLOE_ORC_BOOLEAN: floe_orc_bool_rle_init(&r->bools, r->data, (size_t)(r->data_end - r->data)); break;
    case FLOE_ORC_BYTE:
    case FLOE_ORC_UNION: floe_orc_byte_rle_init(&r->bytes, r->data, (size_t)(r->data_end - r->data)); break;
    case FLOE_ORC_SHORT:
    case FLOE_ORC_INT:
    case FLOE_ORC_LONG:
    case FLOE_ORC_DATE: init_ints(&r->ints, data, v2, true); break;
    case FLOE_ORC_TIMESTAMP:
    case FLOE_ORC_TIMESTAMP_INSTANT:
        init_ints(&r->ints, data, v2, true);
        init_ints(&r->secondary, sec, v2, false);
        break;
    case FLOE_ORC_DECIMAL:
        r->decimal64 = ss->file->decimal64 && col->precision > 0 && col->precision <= 18;
        if (r->decimal64) init_ints(&r->ints, data, true, true);
        else init_ints(&r->secondary, sec, v2, true);
        break;
    case FLOE_ORC_STRING:
    case FLOE_ORC_VARCHAR:
    case FLOE_ORC_CHAR:
    case FLOE_ORC_BINARY:
        init_ints(&r->lengths, len, v2, false);
        if (r->encoding == FLOE_ORC_ENC_DICTIONARY || r->encoding == FLOE_ORC_ENC_DICTIONARY_V2) {
            init_ints(&r->ints, data, v2, false);
            st = floe_orc_col_prepare_dictionary(r);
            if (st) goto fail;
        }
        break;
    case FLOE_ORC_LIST:
    case FLOE_ORC_MAP: init_ints(&r->lengths, len, v2, false); break;
    default: break;
    }
    /* children */
    int nc = 0;
    for (int i = 0; i < col->num_children; i++) nc += include[col->children[i]->id];
    if (col->kind == FLOE_ORC_UNION) r->num_variants = col->num_children;
    if (nc) {
        r->children = floe_calloc((size_t)nc, sizeof *r->children);
        r->child_index = floe_calloc((size_t)nc, sizeof *r->child_index);
        if (!r->children || !r->child_index) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
            goto fail;
        }
    }
    for (int i = 0; i < col->num_children; i++) {
        const floe_orc_column *c = col->children[i];
        if (!include[c->id]) continue;
        floe_type *ct;
        switch (col->kind) {
        case FLOE_ORC_STRUCT: ct = type->children[r->num_children].type; break;
        case FLOE_ORC_UNION: ct = type->children[1 + r->num_children].type; break;
        case FLOE_ORC_LIST: ct = type->children[0].type; break;
        default: ct = type->children[0].type->children[i].type; break; /* map entries */
        }
        r->child_index[r->num_children] = i;
        st = floe_orc_col_reader_new(ss, c, include, ct, &r->children[r->num_children]);
        if (st) goto fail;
        r->num_children++;
    }
    if ((col->kind == FLOE_ORC_LIST && r->num_children != 1) ||
        (col->kind == FLOE_ORC_MAP && r->num_children != 2) ||
        (col->kind == FLOE_ORC_UNION && r->num_children != col->num_children)) {
        st = floe_error(FLOE_ERR_INTERNAL, "ORC reader: column %u: children not all selected", col->id);
        goto fail;
    }
    *out = r;
    return NULL;
fail:
    floe_orc_col_reader_free(r);
    return st;
}

void floe_orc_col_reader_free(floe_orc_col_reader *r) {
    if (!r) return;
    for (int i = 0; i < r->num_children; i++) floe_orc_col_reader_free(r->children[i]);
    floe_free(r->children);
    floe_free(r->child_index);
    floe_free(r->dict_offsets);
    floe_free(r->scratch);
    floe_free(r->bits);
    floe_type_release(r->type);
    floe_free(r);
}

/* ------------------------------------------------------------ helpers */

/* Move k dense values (width w) to the valid slots of n, zeroing nulls. */
static void spread(uint8_t *vals, int w, int64_t n, int64_t k, const uint8_t *valid) {
    int64_t j = k - 1;
    for (int64_t i = n - 1; i >= 0; i--) {
        if (i == j) break; /* the rest are all valid and in place */
        if (floe_bit_get(valid, i)) {
            switch (w) {
            case 4: memcpy(vals + i * 4, vals + j * 4, 4); break;
            case 8: memcpy(vals + i * 8, vals + j * 8, 8); break;
            default: memcpy(vals + i * w, vals + j * w, (size_t)w); break;
            }
            j--;
        } else {
            memset(vals + i * w, 0, (size_t)w);
        }
    }
}

static floe_status new_buffer(int64_t bytes, floe_buffer **out) {
    return floe_buffer_new(bytes > 0 ? bytes : 0, out);
}

static floe_status make_array(floe_orc_col_reader *r, int64_t n, int64_t k, floe_buffer *validity,
                              floe_buffer *const *bufs, int nb, floe_array *const *children, int nc,
                              floe_array **out) {
    return floe_array_new(r->type, n, 0, n - k, validity, bufs, nb, children, nc, out);
}

/* Validity of n slots from the parent's and the PRESENT stream. */
static floe_status read_validity(floe_orc_col_reader *r, int64_t n, const uint8_t *parent,
                                 floe_buffer **validity, int64_t *k) {
    *validity = NULL;
    *k = n;
    if (!parent && !r->has_present) return NULL;
    floe_buffer *v;
    FLOE_TRY(new_buffer((n + 7) / 8, &v));
    floe_status st = NULL;
    if (!r->has_present) {
        if (n) memcpy(v->data, parent, (size_t)(n + 7) / 8);
    } else if (!parent) {
        st = floe_orc_bool_rle_read(&r->present, v->data, 0, (size_t)n);
    } else {
        int64_t m = floe_bitmap_count(parent, 0, n);
        st = bits_scratch(r, (size_t)m);
        if (!st) st = floe_orc_bool_rle_read(&r->present, r->bits, 0, (size_t)m);
        int64_t j = 0;
        for (int64_t i = 0; !st && i < n; i++)
            if (floe_bit_get(parent, i) && floe_bit_get(r->bits, j++)) floe_bit_set(v->data, i);
    }
    if (st) {
        floe_buffer_release(v);
        return floe_orc_col_error(r, "PRESENT stream", st);
    }
    if (n & 7) v->data[n >> 3] &= (uint8_t)((1u << (n & 7)) - 1);
    *k = floe_bitmap_count(v->data, 0, n);
    if (*k == n) {
        floe_buffer_release(v);
        return NULL;
    }
    *validity = v;
    return NULL;
}

/* ------------------------------------------------------------ primitives */

static floe_status read_ints(floe_orc_col_reader *r, int64_t n, int64_t k, const uint8_t *valid,
                             floe_buffer *vals) {
    int kind = r->col->kind;
    floe_status st;
    if (kind == FLOE_ORC_LONG) {
        st = floe_orc_int_rle_read(&r->ints, (int64_t *)vals->data, (size_t)k);
        if (st) return floe_orc_col_error(r, "DATA stream", st);
        if (k < n) spread(vals->data, 8, n, k, valid);
        return NULL;
    }
    FLOE_TRY(floe_orc_col_scratch(r, (size_t)k));
    st = floe_orc_int_rle_read(&r->ints, r->scratch, (size_t)k);
    if (st) return floe_orc_col_error(r, "DATA stream", st);
    int64_t lo = kind == FLOE_ORC_SHORT ? INT16_MIN : INT32_MIN;
    int64_t hi = kind == FLOE_ORC_SHORT ? INT16_MAX : INT32_MAX;
    int32_t *o = (int32_t *)vals->data;
    const int64_t *sv = r->scratch;
    int64_t mn = 0, mx = 0;
    for (int64_t i = 0; i < k; i++) { /* min/max: vectorizes, unlike a flag */
        int64_t x = sv[i];
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
        o[i] = (int32_t)x;
    }
    if (mn < lo || mx > hi) {
        for (int64_t i = 0; i < k; i++)
            if (r->scratch[i] < lo || r->scratch[i] > hi)
                return floe_orc_col_error(
                    r, "DATA stream",
                    floe_error(FLOE_ERR_CORRUPT, "value %" PRId64 " is out of range for %s",
                               r->scratch[i], floe_orc_kind_name(kind)));
    }
    if (k < n) spread(vals->data, 4, n, k, valid);
    return NULL;
}

static floe_status read_fixed(floe_orc_col_reader *r, int64_t n, int64_t k, floe_buffer *validity,
                              floe_array **out) {
    const uint8_t *valid = validity ? validity->data : NULL;
    int w = r->type->byte_width;
    floe_buffer *vals;
    FLOE_TRY(new_buffer(n * w, &vals));
    floe_status st = NULL;
    switch (r->col->kind) {
    case FLOE_ORC_BYTE: {
        st = floe_orc_byte_rle_read(&r->bytes, vals->data + 3 * k, (size_t)k);
        if (st) {
            st = floe_orc_col_error(r, "DATA stream", st);
            break;
        }
        int32_t *o = (int32_t *)vals->data;
        const int8_t *b = (const int8_t *)(vals->data + 3 * k);
        for (int64_t i = 0; i < k; i++) o[i] = b[i]; /* forward: b[i] sits past o[i] */
        if (k < n) spread(vals->data, 4, n, k, valid);
        break;
    }
    case FLOE_ORC_SHORT:
    case FLOE_ORC_INT:
    case FLOE_ORC_LONG:
    case FLOE_ORC_DATE: st = read_ints(r, n, k, valid, vals); break;
    case FLOE_ORC_FLOAT:
    case FLOE_ORC_DOUBLE: {
        size_t bytes = (size_t)k * (size_t)w;
        if ((size_t)(r->data_end - r->data) < bytes) {
            st = floe_orc_col_error(
                r, "DATA stream",
                floe_error(FLOE_ERR_CORRUPT, "stream ends after %zu values, %" PRId64 " needed",
                           (size_t)(r->data_end - r->data) / (size_t)w, k));
            break;
        }
        if (bytes) memcpy(vals->data, r->data, bytes);
        r->data += bytes;
        if (k < n) spread(vals->data, w, n, k, valid);
        break;
    }
    case FLOE_ORC_TIMESTAMP:
    case FLOE_ORC_TIMESTAMP_INSTANT:
        st = floe_orc_col_read_timestamps(r, n, k, valid, (int64_t *)vals->data);
        break;
    case FLOE_ORC_DECIMAL:
        st = floe_orc_col_read_decimals(r, n, k, (floe_decimal128 *)vals->data);
        if (!st && k < n) spread(vals->data, 16, n, k, valid);
        break;
    default:
        st = floe_error(FLOE_ERR_INTERNAL, "ORC reader: kind %d is not fixed-width", r->col->kind);
    }
    if (!st) st = make_array(r, n, k, validity, &vals, 1, NULL, 0, out);
    floe_buffer_release(vals);
    return st;
}

static floe_status read_bools(floe_orc_col_reader *r, int64_t n, int64_t k, floe_buffer *validity,
                              floe_array **out) {
    floe_buffer *vals;
    FLOE_TRY(new_buffer((n + 7) / 8, &vals));
    floe_status st;
    if (!validity) {
        st = floe_orc_bool_rle_read(&r->bools, vals->data, 0, (size_t)n);
    } else {
        st = bits_scratch(r, (size_t)k);
        if (!st) st = floe_orc_bool_rle_read(&r->bools, r->bits, 0, (size_t)k);
        int64_t j = 0;
        for (int64_t i = 0; !st && i < n; i++)
            if (floe_bit_get(validity->data, i) && floe_bit_get(r->bits, j++)) floe_bit_set(vals->data, i);
    }
    if (st) st = floe_orc_col_error(r, "DATA stream", st);
    if (!st && (n & 7)) vals->data[n >> 3] &= (uint8_t)((1u << (n & 7)) - 1);
    if (!st) st = make_array(r, n, k, validity, &vals, 1, NULL, 0, out);
    floe_buffer_release(vals);
    return st;
}

/* --------------------------------------------------------------- nested */

static floe_status read_struct(floe_orc_col_reader *r, int64_t n, int64_t k, floe_buffer *validity,
                               floe_array **out) {
    floe_array **kids = floe_calloc((size_t)r->num_children + 1, sizeof *kids);
    if (!kids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_status st = NULL;
    for (int i = 0; !st && i < r->num_children; i++)
        st = floe_orc_col_read(r->children[i], n, validity ? validity->data : NULL, &kids[i]);
    if (!st) st = make_array(r, n, k, validity, NULL, 0, kids, r->num_children, out);
    for (int i = 0; i < r->num_children; i++) floe_array_release(kids[i]);
    floe_free(kids);
    return st;
}

/* LENGTH values for k lists into int32 offsets of n + 1 slots. */
static floe_status read_offsets(floe_orc_col_reader *r, int64_t n, int64_t k, const uint8_t *valid,
                                floe_buffer **offsets, int64_t *total) {
    FLOE_TRY(floe_orc_col_scratch(r, (size_t)k));
    floe_status st = floe_orc_int_rle_read(&r->lengths, r->scratch, (size_t)k);
    if (st) return floe_orc_col_error(r, "LENGTH stream", st);
    FLOE_TRY(new_buffer((n + 1) * 4, offsets));
    int32_t *o = (int32_t *)(*offsets)->data;
    int64_t sum = 0, j = 0;
    o[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!valid || floe_bit_get(valid, i)) {
            uint64_t l = (uint64_t)r->scratch[j++];
            if (l > INT32_MAX || (uint64_t)sum + l > INT32_MAX) {
                floe_buffer_release(*offsets);
                *offsets = NULL;
                return floe_orc_col_error(
                    r, "LENGTH stream",
                    floe_error(FLOE_ERR_CORRUPT, "length %" PRIu64 " at row %" PRId64
                               " is negative or makes the batch's elements overflow int32", l, i));
            }
            sum += (int64_t)l;
        }
        o[i + 1] = (int32_t)sum;
    }
    *total = sum;
    return NULL;
}

static floe_status read_list(floe_orc_col_reader *r, int64_t n, int64_t k, floe_buffer *validity,
                             floe_array **out) {
    floe_buffer *offs;
    int64_t total;
    FLOE_TRY(read_offsets(r, n, k, validity ? validity->data : NULL, &offs, &total));
    floe_array *kids[2] = {NULL, NULL};
    floe_status st = NULL;
    for (int i = 0; !st && i < r->num_children; i++)
        st = floe_orc_col_read(r->children[i], total, NULL, &kids[i]);
    if (!st && r->col->kind == FLOE_ORC_MAP) {
        floe_array *entries = NULL;
        st = floe_array_new(r->type->children[0].type, total, 0, 0, NULL, NULL, 0, kids, 2, &entries);
        if (!st) st = make_array(r, n, k, validity, &offs, 1, &entries, 1, out);
        floe_array_release(entries);
    } else if (!st) {
        st = make_array(r, n, k, validity, &offs, 1, kids, 1, out);
    }
    floe_array_release(kids[0]);
    floe_array_release(kids[1]);
    floe_buffer_release(offs);
    return st;
}

static floe_status read_union(floe_orc_col_reader *r, int64_t n, int64_t k, floe_buffer *validity,
                              floe_array **out) {
    const uint8_t *valid = validity ? validity->data : NULL;
    int nv = r->num_variants;
    floe_buffer *tags = NULL;
    floe_array **kids = floe_calloc((size_t)nv + 1, sizeof *kids);
    uint8_t *mask = floe_malloc((size_t)(n + 7) / 8 + 1);
    floe_status st = kids && mask ? new_buffer(n * 4, &tags)
                                  : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    if (!st) st = bits_scratch(r, (size_t)k * 8);
    if (!st) {
        st = floe_orc_byte_rle_read(&r->bytes, r->bits, (size_t)k);
        if (st) st = floe_orc_col_error(r, "DATA stream (tags)", st);
    }
    int32_t *t = tags ? (int32_t *)tags->data : NULL;
    for (int64_t i = 0, j = 0; !st && i < n; i++) {
        if (valid && !floe_bit_get(valid, i)) continue;
        t[i] = r->bits[j++];
        if (t[i] >= nv)
            st = floe_orc_col_error(r, "DATA stream (tags)",
                                    floe_error(FLOE_ERR_CORRUPT, "tag %d at row %" PRId64
                                               " but the union has %d variants", t[i], i, nv));
    }
    if (!st) st = floe_array_new(r->type->children[0].type, n, 0, n - k, validity, &tags, 1, NULL, 0, &kids[0]);
    for (int v = 0; !st && v < nv; v++) {
        memset(mask, 0, (size_t)(n + 7) / 8 + 1);
        for (int64_t i = 0; i < n; i++)
            if ((!valid || floe_bit_get(valid, i)) && t[i] == v) floe_bit_set(mask, i);
        st = floe_orc_col_read(r->children[v], n, mask, &kids[v + 1]);
    }
    if (!st) st = make_array(r, n, k, validity, NULL, 0, kids, nv + 1, out);
    if (kids)
        for (int v = 0; v <= nv; v++) floe_array_release(kids[v]);
    floe_free(kids);
    floe_free(mask);
    floe_buffer_release(tags);
    return st;
}

floe_status floe_orc_col_read(floe_orc_col_reader *r, int64_t n, const uint8_t *parent_valid,
                              floe_array **out) {
    *out = NULL;
    floe_buffer *validity;
    int64_t k;
    FLOE_TRY(read_validity(r, n, parent_valid, &validity, &k));
    floe_status st;
    switch (r->col->kind) {
    case FLOE_ORC_BOOLEAN: st = read_bools(r, n, k, validity, out); break;
    case FLOE_ORC_STRING:
    case FLOE_ORC_VARCHAR:
    case FLOE_ORC_CHAR:
    case FLOE_ORC_BINARY: st = floe_orc_col_read_strings(r, n, k, validity, out); break;
    case FLOE_ORC_STRUCT: st = read_struct(r, n, k, validity, out); break;
    case FLOE_ORC_LIST:
    case FLOE_ORC_MAP: st = read_list(r, n, k, validity, out); break;
    case FLOE_ORC_UNION: st = read_union(r, n, k, validity, out); break;
    default: st = read_fixed(r, n, k, validity, out); break;
    }
    floe_buffer_release(validity);
    return st;
}
