/*
 * functions.c — the scalar function registry (name → arity, type rule,
 * kernel), the glue FLOE_EXPR_CALL uses for typing and evaluation, and the
 * helpers the kernels in func_string.c, func_numeric.c and func_datetime.c
 * share (validity, output arrays, UTF-8 scanning and case mapping).
 */
#include <string.h>

#include "base/str.h"
#include "exec/func/functions.h"

/* ------------------------------------------------------------ registry */

static const floe_func_def *const families[] = {floe_string_funcs, floe_numeric_funcs, floe_datetime_funcs,
                                                floe_iceberg_funcs, floe_struct_funcs, floe_variant_funcs,
                                                floe_text_funcs, floe_subquery_funcs, floe_regexp_funcs, floe_json_funcs, floe_jsonb_op_funcs,
                                                floe_interval_funcs, floe_array_funcs, floe_nested_funcs, floe_array_op_funcs,
                                                floe_timezone_funcs, floe_random_funcs, floe_zorder_funcs,
                                                floe_pgcatalog_funcs};
#define N_FAMILIES (sizeof families / sizeof families[0])

const floe_func_def *floe_func_lookup(const char *name) {
    if (!name) return NULL;
    for (size_t f = 0; f < N_FAMILIES; f++)
        for (const floe_func_def *d = families[f]; d->name; d++)
            if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

floe_status floe_func_unknown(const char *name) {
    /* Candidates: every registered name (a few dozen). */
    const char *names[256];
    size_t n = 0;
    for (size_t f = 0; f < N_FAMILIES; f++)
        for (const floe_func_def *d = families[f]; d->name && n < 256; d++) names[n++] = d->name;
    return floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "function", floe_str_c(name), names, n);
}

floe_status floe_func_call_type(const floe_expr *call, floe_type *const *types, floe_type **out) {
    const floe_func_def *def = floe_func_lookup(call->func);
    *out = NULL;
    if (!def) return floe_func_unknown(call->func);
    if (call->n_args < def->min_args || (def->max_args >= 0 && call->n_args > def->max_args))
        return fn_type_error(def, types, call->n_args);
    return def->type(def, (const floe_expr *const *)call->args, types, call->n_args, out);
}

floe_status floe_func_call_eval(const floe_expr *call, const floe_batch *batch, floe_array **out) {
    const floe_func_def *def = floe_func_lookup(call->func);
    int32_t n = call->n_args;
    floe_array *a1[4] = {0}, **args = a1;
    floe_type *t1[4] = {0}, **types = t1, *rtype = NULL;
    floe_status st = NULL;
    *out = NULL;
    if (!def) return floe_func_unknown(call->func);
    if (n > 4) {
        args = floe_calloc((size_t)n, sizeof *args);
        types = floe_calloc((size_t)n, sizeof *types);
        if (!args || !types) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "evaluating %s", def->name);
            goto done;
        }
    }
    /* Literals stay one slot: kernels broadcast them (fn_at). */
    for (int32_t i = 0; i < n && !st; i++) {
        if (call->args[i]->kind == FLOE_EXPR_LITERAL) args[i] = floe_array_retain(call->args[i]->literal);
        else st = floe_expr_eval(call->args[i], batch, &args[i]);
        if (!st) types[i] = args[i]->type;
    }
    if (!st && (n < def->min_args || (def->max_args >= 0 && n > def->max_args))) st = fn_type_error(def, types, n);
    if (!st) st = def->type(def, (const floe_expr *const *)call->args, types, n, &rtype);
    /* Kernel errors name the function themselves. */
    if (!st) st = def->eval(def, args, n, batch->num_rows, rtype, out);
done:
    for (int32_t i = 0; args && i < n; i++) floe_array_release(args[i]);
    if (args != a1) floe_free(args);
    if (types != t1) floe_free(types);
    floe_type_release(rtype);
    return st;
}

/* ------------------------------------------------------ type helpers */

bool fn_is_string(const floe_type *t) { return t->id == FLOE_TYPE_STRING || t->id == FLOE_TYPE_NULL; }
bool fn_is_int(const floe_type *t) {
    return t->id == FLOE_TYPE_INT32 || t->id == FLOE_TYPE_INT64 || t->id == FLOE_TYPE_NULL;
}
bool fn_is_float(const floe_type *t) {
    return t->id == FLOE_TYPE_FLOAT32 || t->id == FLOE_TYPE_FLOAT64 || t->id == FLOE_TYPE_NULL;
}
bool fn_is_numeric(const floe_type *t) { return fn_is_int(t) || fn_is_float(t) || t->id == FLOE_TYPE_DECIMAL128; }
bool fn_is_datetime(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_NULL: case FLOE_TYPE_DATE32: case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ: return true;
    default: return false;
    }
}

floe_status fn_type_error(const floe_func_def *def, floe_type *const *types, int32_t n) {
    floe_buf b;
    floe_buf_init(&b);
    floe_status st = floe_buf_printf(&b, "%s(", def->name);
    for (int32_t i = 0; i < n && !st; i++) {
        if (i) st = floe_buf_append_str(&b, ", ");
        if (!st) st = types[i] ? floe_type_to_string(types[i], &b) : floe_buf_append_str(&b, "?");
    }
    if (!st) st = floe_buf_append_str(&b, ")");
    if (!st)
        st = floe_error(FLOE_ERR_TYPE, "function %s does not exist (expected %s)", floe_buf_cstr(&b), def->signature);
    floe_buf_free(&b);
    return st;
}

bool fn_kind_ok(char k, const floe_type *t) {
    switch (k) {
    case 'S': return fn_is_string(t);
    case 'B': return fn_is_string(t) || t->id == FLOE_TYPE_BINARY;
    case 'I': return fn_is_int(t);
    case 'N': return fn_is_numeric(t);
    case 'T': return fn_is_datetime(t);
    case 'A': return !floe_type_is_nested(t);
    case 'V': return t->id == FLOE_TYPE_INTERVAL || t->id == FLOE_TYPE_NULL;
    case 'H': return t->id == FLOE_TYPE_TIME64_US || t->id == FLOE_TYPE_NULL;
    default: return false;
    }
}

floe_status fn_type_simple(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                           int32_t n, floe_type **out) {
    (void)args;
    size_t nk = strlen(def->kinds);
    for (int32_t i = 0; i < n; i++) {
        char k = def->kinds[(size_t)i < nk ? (size_t)i : nk - 1];
        if (!fn_kind_ok(k, types[i])) return fn_type_error(def, types, n);
    }
    *out = floe_type_primitive(def->result);
    return NULL;
}

floe_status fn_need_const(const floe_func_def *def, int32_t arg, const char *what) {
    return floe_error(FLOE_ERR_TYPE, "%s: argument %d (%s) must be a constant", def->name, arg + 1, what);
}

/* ------------------------------------------------------ array helpers */

floe_status fn_validity(floe_array *const *args, int32_t n, int64_t rows, floe_buffer **out) {
    *out = NULL;
    bool any = false;
    for (int32_t k = 0; k < n; k++)
        if (args[k]->type->id == FLOE_TYPE_NULL || floe_array_null_count(args[k]) > 0) any = true;
    if (!any) return NULL;
    int64_t bytes = (rows + 7) / 8;
    FLOE_TRY(floe_buffer_new(bytes, out));
    uint8_t *bits = (*out)->data;
    memset(bits, 0xff, (size_t)bytes);
    for (int32_t k = 0; k < n; k++) {
        const floe_array *a = args[k];
        if (a->type->id == FLOE_TYPE_NULL || (fn_const(a) && floe_array_is_null(a, 0))) {
            memset(bits, 0, (size_t)bytes);
        } else if (a->validity && !fn_const(a)) {
            const uint8_t *v = a->validity->data;
            for (int64_t i = 0; i < rows; i++)
                if (!floe_bit_get(v, a->offset + i)) floe_bit_clear(bits, i);
        }
    }
    return NULL;
}

floe_status fn_make_fixed(floe_type *type, int64_t rows, floe_buffer *validity, floe_buffer *values,
                          floe_array **out) {
    floe_status st = floe_array_new(type, rows, 0, FLOE_NULL_COUNT_UNKNOWN, validity, &values, 1, NULL, 0, out);
    floe_buffer_release(validity);
    floe_buffer_release(values);
    return st;
}

double fn_get_f64(const floe_array *a, int64_t i) {
    i = fn_at(a, i);
    switch (a->type->id) {
    case FLOE_TYPE_INT32: return floe_array_get_int32(a, i);
    case FLOE_TYPE_INT64: return (double)floe_array_get_int64(a, i);
    case FLOE_TYPE_FLOAT32: return floe_array_get_float(a, i);
    case FLOE_TYPE_FLOAT64: return floe_array_get_double(a, i);
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, i);
        __int128 v = (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
        double x = (double)v;
        for (int32_t s = 0; s < a->type->scale; s++) x /= 10.0;
        return x;
    }
    default: return 0;
    }
}

/* ------------------------------------------------------ string writer */

floe_status fn_sw_init(fn_strwriter *w, int64_t rows, floe_buffer *validity) {
    memset(w, 0, sizeof *w);
    floe_buf_init(&w->data);
    w->rows = rows;
    w->validity = validity;
    floe_status st = floe_buffer_new((rows + 1) * (int64_t)sizeof(int32_t), &w->offsets);
    if (st) {
        floe_buffer_release(validity);
        w->validity = NULL;
    }
    return st;
}

floe_status fn_sw_add(fn_strwriter *w, const void *p, size_t n) {
    if (w->data.len + n > (size_t)INT32_MAX)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "string result exceeds 2 GiB in one batch");
    return n ? floe_buf_append(&w->data, p, n) : NULL;
}

floe_status fn_sw_end_row(fn_strwriter *w) {
    if (w->data.len > (size_t)INT32_MAX)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "string result exceeds 2 GiB in one batch");
    ((int32_t *)w->offsets->data)[++w->row] = (int32_t)w->data.len;
    return NULL;
}

floe_status fn_sw_append(fn_strwriter *w, const void *p, size_t n) {
    FLOE_TRY(fn_sw_add(w, p, n));
    return fn_sw_end_row(w);
}

floe_status fn_sw_set_null(fn_strwriter *w, int64_t i) {
    if (!w->validity) {
        int64_t bytes = (w->rows + 7) / 8;
        FLOE_TRY(floe_buffer_new(bytes, &w->validity));
        memset(w->validity->data, 0xff, (size_t)bytes);
    }
    floe_bit_clear(w->validity->data, i);
    return NULL;
}

static void free_detached(void *ctx, const uint8_t *data) {
    (void)ctx;
    floe_free((void *)data);
}

floe_status fn_sw_finish(fn_strwriter *w, floe_type *type, floe_array **out) {
    floe_buffer *bufs[2] = {w->offsets, NULL};
    /* Hand the grown bytes over without copying them.  64 zeroed bytes of
     * slack keep whole-word readers past the last value in bounds. */
    floe_status st = floe_buf_reserve(&w->data, 64);
    if (!st) {
        size_t len;
        memset(w->data.data + w->data.len, 0, 64);
        uint8_t *p = floe_buf_detach(&w->data, &len);
        st = floe_buffer_wrap(p, (int64_t)len, free_detached, NULL, &bufs[1]);
        if (st) floe_free(p);
    }
    if (!st)
        st = floe_array_new(type, w->rows, 0, FLOE_NULL_COUNT_UNKNOWN, w->validity, bufs, 2, NULL, 0, out);
    floe_buffer_release(bufs[1]);
    fn_sw_free(w);
    return st;
}

floe_status fn_sw_reserve_like(fn_strwriter *w, const floe_array *a) {
    if (!floe_type_is_binary_like(a->type) || fn_const(a) || a->length == 0) return NULL;
    const int32_t *o = floe_array_offsets(a);
    return floe_buf_reserve(&w->data, (size_t)(o[a->length] - o[0]));
}

void fn_sw_free(fn_strwriter *w) {
    floe_buffer_release(w->offsets);
    floe_buffer_release(w->validity);
    floe_buf_free(&w->data);
    memset(w, 0, sizeof *w);
}

/* ---------------------------------------------------------------- UTF-8 */

int64_t fn_utf8_count(const char *s, int64_t n) {
    /* Characters = bytes - continuation bytes (10xxxxxx), 8 at a time:
     * a continuation byte has bit 7 set and bit 6 clear. */
    int64_t cont = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        cont += __builtin_popcountll(w & ~(w << 1) & UINT64_C(0x8080808080808080));
    }
    for (; i < n; i++) cont += ((unsigned char)s[i] & 0xC0) == 0x80;
    return n - cont;
}

int64_t fn_utf8_advance(const char *s, int64_t n, int64_t k) {
    int64_t i = 0;
    while (k > 0 && i < n) {
        i += fn_utf8_len((unsigned char)s[i]);
        k--;
    }
    return i < n ? i : n;
}

/* Decode one code point at s (n bytes left); *len gets its byte length.
 * Malformed bytes decode as themselves with length 1. */
static uint32_t utf8_decode(const unsigned char *s, int64_t n, int *len) {
    int l = fn_utf8_len(s[0]);
    if (l == 1 || l > n) {
        *len = 1;
        return s[0];
    }
    uint32_t cp = s[0] & (0x7F >> l);
    for (int i = 1; i < l; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return s[0];
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = l;
    return cp;
}

static int utf8_encode(uint32_t cp, unsigned char *o) {
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Simple case mapping for the scripts most data uses; every mapping here
 * keeps the UTF-8 byte length, so results never need re-measuring. */
static uint32_t cp_lower(uint32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0xC0) return c;
    if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;           /* Latin-1 */
    if (c >= 0x100 && c <= 0x17F) {                                     /* Latin Extended-A */
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
        if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
        if (c == 0x178) return 0xFF;
        return (c & 1) ? c : c + 1;
    }
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;         /* Greek */
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 63;
    if (c >= 0x410 && c <= 0x42F) return c + 32;                        /* Cyrillic */
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}

static uint32_t cp_upper(uint32_t c) {
    if (c >= 'a' && c <= 'z') return c - 32;
    if (c < 0xE0) return c;
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
    if (c == 0xFF) return 0x178;
    if (c >= 0x100 && c <= 0x17F) {
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c : c - 1;
        if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
        return (c & 1) ? c - 1 : c;
    }
    if (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) return c - 32;
    if (c == 0x3C2) return 0x3A3; /* final sigma */
    if (c == 0x3AC) return 0x386;
    if (c >= 0x3AD && c <= 0x3AF) return c - 37;
    if (c == 0x3CC) return 0x38C;
    if (c == 0x3CD || c == 0x3CE) return c - 63;
    if (c >= 0x430 && c <= 0x44F) return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    return c;
}

floe_status fn_utf8_case(const char *s, int64_t n, bool upper, floe_buf *out) {
    uint8_t *o = floe_buf_extend(out, (size_t)n);
    if (!o && n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "changing case of %lld bytes", (long long)n);
    const unsigned char *p = (const unsigned char *)s;
    const uint64_t hi = UINT64_C(0x8080808080808080), ones = UINT64_C(0x0101010101010101);
    const uint64_t ge = ones * (uint64_t)(0x80 - (upper ? 'a' : 'A')), gt = ones * (uint64_t)(0x7f - (upper ? 'z' : 'Z'));
    for (int64_t i = 0; i < n;) {
        /* Eight ASCII bytes at a time: flip bit 5 of the letters to map. */
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (!(w & hi)) {
                uint64_t letters = (w + ge) & ~(w + gt) & hi;
                w ^= letters >> 2;
                memcpy(o + i, &w, 8);
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c < 0x80) {
            o[i++] = (uint8_t)(upper ? floe_ascii_upper((char)c) : floe_ascii_lower((char)c));
            continue;
        }
        int len;
        uint32_t cp = utf8_decode(p + i, n - i, &len);
        uint32_t m = upper ? cp_upper(cp) : cp_lower(cp);
        unsigned char tmp[4];
        if (len > 1 && m != cp && utf8_encode(m, tmp) == len) memcpy(o + i, tmp, (size_t)len);
        else memcpy(o + i, p + i, (size_t)len);
        i += len;
    }
    return NULL;
}
