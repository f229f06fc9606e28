/*
 * column_values.c — the value decoders of column_reader.h that are more
 * than a copy: strings and binary (DIRECT: LENGTH + DATA; DICTIONARY:
 * DATA codes into a dictionary of LENGTH + DICTIONARY_DATA), timestamps
 * (seconds since 2015-01-01 in the writer's zone + nanoseconds with their
 * trailing zeros stripped) and decimals (unbounded zigzag varints with a
 * per-value scale in SECONDARY, or decimal64: RLE v2 unscaled values at
 * the type's scale).
 */
#include <inttypes.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "formats/orc/column_reader.h"

#define ORC_EPOCH 1420070400 /* 2015-01-01 00:00:00 UTC */

static floe_status corrupt(const floe_orc_col_reader *r, const char *stream, const char *fmt, ...)
    FLOE_PRINTF(3, 4);
static floe_status corrupt(const floe_orc_col_reader *r, const char *stream, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(FLOE_ERR_CORRUPT, fmt, ap);
    va_end(ap);
    return floe_orc_col_error(r, stream, st);
}

/* ------------------------------------------------------------- strings */

static bool is_text(const floe_orc_col_reader *r) { return r->col->kind != FLOE_ORC_BINARY; }

/* Bytes [0, total) hold values ending at ends[0..n): valid UTF-8 each iff
 * the whole is valid and no value starts on a continuation byte.  -1 when
 * fine, else the first bad value's index (n when the bad byte is unknown). */
static int64_t bad_utf8(const uint8_t *d, uint64_t total, const int64_t *starts, int64_t n) {
    size_t off;
    if (!floe_utf8_valid(d, (size_t)total, &off)) {
        for (int64_t i = 0; i < n; i++)
            if ((uint64_t)starts[i] > off) return i ? i - 1 : 0;
        return n ? n - 1 : 0;
    }
    for (int64_t i = 0; i < n; i++)
        if ((uint64_t)starts[i] < total && (d[starts[i]] & 0xc0) == 0x80) return i;
    return -1;
}

floe_status floe_orc_col_prepare_dictionary(floe_orc_col_reader *r) {
    const floe_orc_stripe_streams *ss = r->ss;
    uint32_t n = ss->footer->encodings[r->col->id].dictionary_size;
    const floe_orc_stream_buf *len = floe_orc_stripe_stream(ss, r->col->id, FLOE_ORC_S_LENGTH);
    const floe_orc_stream_buf *dict = floe_orc_stripe_stream(ss, r->col->id, FLOE_ORC_S_DICTIONARY_DATA);
    if (n && !len) return corrupt(r, "LENGTH stream", "missing, but the dictionary has %u entries", n);
    if (n > (1u << 28)) return corrupt(r, NULL, "dictionary size %u is implausible", n);
    r->dict_offsets = floe_malloc(((size_t)n + 1) * sizeof *r->dict_offsets);
    if (!r->dict_offsets) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    FLOE_TRY(floe_orc_col_scratch(r, n));
    floe_status st = floe_orc_int_rle_read(&r->lengths, r->scratch, n);
    if (st) return floe_orc_col_error(r, "LENGTH stream (dictionary)", st);
    size_t have = dict ? dict->len : 0;
    uint64_t sum = 0;
    r->dict_offsets[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t l = (uint64_t)r->scratch[i];
        if (l > have - sum)
            return corrupt(r, "DICTIONARY_DATA stream",
                           "dictionary entry %u has length %" PRId64 " but only %" PRIu64
                           " bytes remain",
                           i, r->scratch[i], (uint64_t)(have - sum));
        sum += l;
        r->dict_offsets[i + 1] = (int64_t)sum;
    }
    r->dict_size = n;
    r->dict_data = dict ? dict->data : (const uint8_t *)"";
    if (is_text(r)) {
        int64_t bad = bad_utf8(r->dict_data, sum, r->dict_offsets, n);
        if (bad >= 0) return corrupt(r, "DICTIONARY_DATA stream", "dictionary entry %" PRId64 " is not valid UTF-8", bad);
    }
    return NULL;
}

/* Binary read as Iceberg uuid / fixed[L]: every value must be L bytes. */
static floe_status read_fixed_binary(floe_orc_col_reader *r, int64_t n, int64_t k,
                                     floe_buffer *validity, uint64_t total, floe_array **out) {
    const uint8_t *valid = validity ? validity->data : NULL;
    int64_t w = r->type->byte_width;
    const int64_t *len = r->scratch;
    const uint8_t *src = r->data;
    bool dict = r->encoding == FLOE_ORC_ENC_DICTIONARY || r->encoding == FLOE_ORC_ENC_DICTIONARY_V2;
    if (dict) return corrupt(r, NULL, "a dictionary-encoded binary column");
    for (int64_t i = 0; i < k; i++)
        if (len[i] != w)
            return corrupt(r, "LENGTH stream", "value %" PRId64 " has %" PRId64
                           " bytes, but the column is %s of %" PRId64 " bytes", i, len[i],
                           floe_type_id_name(r->type->id), w);
    floe_buffer *vals;
    FLOE_TRY(floe_buffer_new(n * w, &vals));
    for (int64_t i = 0, j = 0; i < n; i++)
        if (!valid || floe_bit_get(valid, i)) memcpy(vals->data + i * w, src + w * j++, (size_t)w);
    r->data += total;
    floe_status st = floe_array_new(r->type, n, 0, n - k, validity, &vals, 1, NULL, 0, out);
    floe_buffer_release(vals);
    return st;
}

floe_status floe_orc_col_read_strings(floe_orc_col_reader *r, int64_t n, int64_t k,
                                      floe_buffer *validity, floe_array **out) {
    const uint8_t *valid = validity ? validity->data : NULL;
    bool dict = r->encoding == FLOE_ORC_ENC_DICTIONARY || r->encoding == FLOE_ORC_ENC_DICTIONARY_V2;
    FLOE_TRY(floe_orc_col_scratch(r, (size_t)k));
    int64_t *v = r->scratch;
    floe_status st = floe_orc_int_rle_read(dict ? &r->ints : &r->lengths, v, (size_t)k);
    if (st) return floe_orc_col_error(r, dict ? "DATA stream (dictionary codes)" : "LENGTH stream", st);
    /* sizes and checks first, so the data buffer is allocated once */
    uint64_t total = 0;
    if (dict) {
        for (int64_t i = 0; i < k; i++) {
            uint64_t c = (uint64_t)v[i];
            if (c >= r->dict_size)
                return corrupt(r, "DATA stream", "dictionary code %" PRIu64
                               " at value %" PRId64 " but the dictionary has %u entries",
                               c, i, r->dict_size);
            total += (uint64_t)(r->dict_offsets[c + 1] - r->dict_offsets[c]);
        }
    } else {
        uint64_t have = (uint64_t)(r->data_end - r->data);
        for (int64_t i = 0; i < k; i++) {
            uint64_t l = (uint64_t)v[i];
            if (l > have - total)
                return corrupt(r, "DATA stream", "value %" PRId64 " has length %" PRId64
                               " but only %" PRIu64 " bytes remain", i, v[i], have - total);
            total += l;
        }
    }
    if (r->type->byte_width > 0) return read_fixed_binary(r, n, k, validity, total, out);
    if (total > INT32_MAX)
        return corrupt(r, NULL, "%" PRIu64 " bytes of values in one batch overflow int32 offsets "
                       "(use a smaller batch size)", total);
    floe_buffer *offs = NULL, *data = NULL;
    st = floe_buffer_new((n + 1) * 4, &offs);
    if (!st) st = floe_buffer_new((int64_t)total, &data);
    if (st) {
        floe_buffer_release(offs);
        return st;
    }
    int32_t *o = (int32_t *)offs->data;
    uint8_t *d = data->data;
    int64_t pos = 0, j = 0;
    o[0] = 0;
    if (dict) {
        const int64_t *doff = r->dict_offsets;
        const uint8_t *dd = r->dict_data;
        /* Short entries are copied 16 bytes at a time (the dictionary has
         * 16 bytes of padding, and the output room is checked), so the
         * gather makes no call per value. */
        int64_t tot = (int64_t)total;
        if (!valid) {
            for (int64_t i = 0; i < n; i++) {
                uint64_t c = (uint64_t)v[i];
                int64_t l = doff[c + 1] - doff[c];
                const uint8_t *src = dd + doff[c];
                if (l <= 16 && pos + 16 <= tot) memcpy(d + pos, src, 16);
                else if (l) memcpy(d + pos, src, (size_t)l);
                pos += l;
                o[i + 1] = (int32_t)pos;
            }
        } else {
            for (int64_t i = 0; i < n; i++) {
                if (floe_bit_get(valid, i)) {
                    uint64_t c = (uint64_t)v[j++];
                    int64_t l = doff[c + 1] - doff[c];
                    const uint8_t *src = dd + doff[c];
                    if (l <= 16 && pos + 16 <= tot) memcpy(d + pos, src, 16);
                    else if (l) memcpy(d + pos, src, (size_t)l);
                    pos += l;
                }
                o[i + 1] = (int32_t)pos;
            }
        }
    } else {
        if (total) memcpy(d, r->data, (size_t)total);
        r->data += total;
        if (is_text(r)) {
            /* value starts, for the boundary check */
            int64_t acc = 0;
            for (int64_t i = 0; i < k; i++) {
                int64_t l = v[i];
                v[i] = acc;
                acc += l;
            }
            int64_t bad = bad_utf8(d, total, v, k);
            if (bad >= 0) {
                floe_buffer_release(offs);
                floe_buffer_release(data);
                return corrupt(r, "DATA stream", "value %" PRId64 " of the batch is not valid UTF-8", bad);
            }
            for (int64_t i = 0; i + 1 < k; i++) v[i] = v[i + 1] - v[i];
            if (k) v[k - 1] = (int64_t)total - v[k - 1];
        }
        if (!valid) {
            for (int64_t i = 0; i < n; i++) {
                pos += v[i];
                o[i + 1] = (int32_t)pos;
            }
        } else {
            for (int64_t i = 0; i < n; i++) {
                if (floe_bit_get(valid, i)) pos += v[j++];
                o[i + 1] = (int32_t)pos;
            }
        }
    }
    floe_buffer *bufs[2] = {offs, data};
    st = floe_array_new(r->type, n, 0, n - k, validity, bufs, 2, NULL, 0, out);
    floe_buffer_release(offs);
    floe_buffer_release(data);
    return st;
}

/* ---------------------------------------------------------- timestamps */

floe_status floe_orc_col_read_timestamps(floe_orc_col_reader *r, int64_t n, int64_t k,
                                         const uint8_t *valid, int64_t *values) {
    FLOE_TRY(floe_orc_col_scratch(r, (size_t)k * 2));
    int64_t *secs = r->scratch, *nanos = r->scratch + k;
    floe_status st = floe_orc_int_rle_read(&r->ints, secs, (size_t)k);
    if (st) return floe_orc_col_error(r, "DATA stream (seconds)", st);
    st = floe_orc_int_rle_read(&r->secondary, nanos, (size_t)k);
    if (st) return floe_orc_col_error(r, "SECONDARY stream (nanoseconds)", st);
    bool instant = r->col->kind == FLOE_ORC_TIMESTAMP_INSTANT;
    const floe_tz *tz = instant ? NULL : r->ss->writer_tz;
    if (tz && floe_tz_is_utc(tz)) tz = NULL;
    int64_t base = ORC_EPOCH;
    if (tz) base -= floe_tz_offset(tz, ORC_EPOCH);
    bool ns = r->ss->unit == FLOE_ORC_TS_NS;
    int64_t tz_from = 1, tz_until = 0, tz_off = 0; /* the zone offset's cached interval */
    static const int64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                    1000000000};
    for (int64_t i = 0; i < k; i++) {
        uint64_t e = (uint64_t)nanos[i];
        int z = (int)(e & 7);
        uint64_t nv = e >> 3;
        if (z) nv *= (uint64_t)pow10[z + 1];
        if ((e >> 3) > 999999999 || nv > 999999999)
            return corrupt(r, "SECONDARY stream", "nanoseconds %" PRIu64 " out of range at value %" PRId64,
                           nv, i);
        int64_t s = secs[i];
        if (s > INT64_MAX / 4 || s < INT64_MIN / 4)
            return corrupt(r, "DATA stream", "seconds %" PRId64 " out of range at value %" PRId64, s, i);
        int64_t t = s + base;
        /* writers truncated negative milliseconds toward zero */
        if (t < 0 && nv > 999999) t -= 1;
        if (tz) {
            if (t < tz_from || t >= tz_until) tz_off = floe_tz_offset_range(tz, t, &tz_from, &tz_until);
            t += tz_off;
        }
        int64_t out;
        if (ns) {
            if (__builtin_mul_overflow(t, (int64_t)1000000000, &out) ||
                __builtin_add_overflow(out, (int64_t)nv, &out))
                return corrupt(r, "DATA stream", "timestamp at value %" PRId64
                               " does not fit nanoseconds in int64", i);
        } else if (__builtin_mul_overflow(t, (int64_t)1000000, &out) ||
                   __builtin_add_overflow(out, (int64_t)(nv / 1000), &out)) {
            return corrupt(r, "DATA stream", "timestamp at value %" PRId64
                           " does not fit microseconds in int64", i);
        }
        secs[i] = out;
    }
    int64_t j = 0;
    if (!valid) {
        if (k) memcpy(values, secs, (size_t)k * 8);
    } else {
        for (int64_t i = 0; i < n; i++) values[i] = floe_bit_get(valid, i) ? secs[j++] : 0;
    }
    return NULL;
}

/* ------------------------------------------------------------ decimals */

static const __int128 p10_18 = (__int128)1000000000000000000LL;

static __int128 pow10_128(int e) {
    __int128 v = 1;
    while (e >= 18) {
        v *= p10_18;
        e -= 18;
    }
    while (e-- > 0) v *= 10;
    return v;
}

floe_status floe_orc_col_read_decimals(floe_orc_col_reader *r, int64_t n, int64_t k,
                                       floe_decimal128 *values) {
    (void)n;
    int target = r->type->scale;
    if (r->decimal64) {
        FLOE_TRY(floe_orc_col_scratch(r, (size_t)k));
        floe_status st = floe_orc_int_rle_read(&r->ints, r->scratch, (size_t)k);
        if (st) return floe_orc_col_error(r, "DATA stream", st);
        for (int64_t i = 0; i < k; i++) values[i] = floe_decimal128_from_int64(r->scratch[i]);
        return NULL;
    }
    FLOE_TRY(floe_orc_col_scratch(r, (size_t)k));
    floe_status st = floe_orc_int_rle_read(&r->secondary, r->scratch, (size_t)k);
    if (st) return floe_orc_col_error(r, "SECONDARY stream (scales)", st);
    const __int128 limit = pow10_128(38);
    for (int64_t i = 0; i < k; i++) {
        __int128 v;
        if (!floe_orc_read_varint128(&r->data, r->data_end, &v))
            return corrupt(r, "DATA stream", "bad or truncated decimal varint at value %" PRId64, i);
        int64_t sc = r->scratch[i];
        if (sc < -38 || sc > 76)
            return corrupt(r, "SECONDARY stream", "decimal scale %" PRId64 " at value %" PRId64, sc, i);
        if (sc < target && v != 0) {
            if (target - sc > 38)
                return corrupt(r, "DATA stream", "decimal at value %" PRId64
                               " overflows 38 digits at scale %d", i, target);
            __int128 m = pow10_128(target - (int)sc);
            if (v > limit / m || v < -(limit / m))
                return corrupt(r, "DATA stream", "decimal at value %" PRId64
                               " overflows 38 digits at scale %d", i, target);
            v *= m;
        } else if (sc > target) {
            int d = (int)sc - target;
            if (d > 38) {
                v = 0;
            } else {
                v /= pow10_128(d); /* cut toward zero, as ORC's C++ reader */
            }
        }
        if (v >= limit || v <= -limit)
            return corrupt(r, "DATA stream", "decimal at value %" PRId64 " has more than 38 digits", i);
        values[i].lo = (uint64_t)v;
        values[i].hi = (int64_t)(v >> 64);
    }
    return NULL;
}
