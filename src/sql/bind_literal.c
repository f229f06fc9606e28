/*
 * bind_literal.c — literals typed like PostgreSQL's: numeric constants as
 * int32 / int64 / decimal / double, typed string constants (dates,
 * timestamps, times, decimals, uuids, bytea ...) read from their text, and
 * the implicit conversions of operands: untyped string literals take the
 * other side's type, dates meet timestamps as timestamps (bind_coerce,
 * bind_unify_pair).
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "floe/interval.h"
#include "base/str.h"
#include "base/tz.h"
#include "floe/iceberg_value.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"

/* ---------------------------------------------------------- literals */

static floe_status lit_decimal(__int128 v, int32_t precision, int32_t scale, floe_expr **out) {
    floe_type *t = NULL;
    FLOE_TRY(floe_type_decimal(precision, scale, &t));
    floe_builder *b = NULL;
    floe_array *a = NULL;
    floe_status st = floe_builder_new(t, 1, &b);
    floe_decimal128 d = {(uint64_t)v, (int64_t)(v >> 64)};
    if (!st) st = floe_builder_append_decimal(b, d);
    if (!st) st = floe_builder_finish(b, &a);
    if (!st) st = floe_expr_literal(a, out);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(t);
    return st;
}

/* A literal of a temporal type from its int value. */
floe_status bind_lit_typed_int(floe_type_id id, int64_t v, floe_expr **out) {
    floe_type *t = floe_type_primitive(id);
    floe_builder *b = NULL;
    floe_array *a = NULL;
    floe_status st = floe_builder_new(t, 1, &b);
    if (!st) st = t->byte_width == 4 ? floe_builder_append_int32(b, (int32_t)v) : floe_builder_append_int64(b, v);
    if (!st) st = floe_builder_finish(b, &a);
    if (!st) st = floe_expr_literal(a, out);
    floe_array_release(a);
    floe_builder_free(b);
    return st;
}

/* Numeric text of the scanner (fval): "3000000000", "1.50", "1e3". */
floe_status bind_lit_numeric_text(const char *text, floe_expr **out) {
    bool neg = text[0] == '-';
    const char *p = neg || text[0] == '+' ? text + 1 : text;
    if (strpbrk(p, "eE")) {
        double d;
        FLOE_TRY(floe_parse_double(floe_str_c(text), "numeric literal", &d));
        return floe_expr_lit_double(d, out);
    }
    const char *dot = strchr(p, '.');
    if (!dot) {
        int64_t v;
        floe_status st = floe_parse_int64(floe_str_c(text), NULL, &v);
        /* -2147483648 arrives here (the grammar negates the constant
         * first) and is an integer, as in PostgreSQL. */
        if (!st && v >= INT32_MIN && v <= INT32_MAX) return floe_expr_lit_int32((int32_t)v, out);
        if (!st) return floe_expr_lit_int64(v, out);
        floe_status_free(st);
    }
    __int128 v = 0;
    int32_t digits = 0, scale = 0, lead = 1;
    for (const char *q = p; *q; q++) {
        if (*q == '.') continue;
        if (!floe_ascii_isdigit(*q)) return floe_error(FLOE_ERR_SYNTAX, "bad numeric literal '%s'", text);
        if (lead && *q == '0' && (!dot || q < dot - 1)) {
            if (dot && q > dot) scale++;
            continue;
        }
        lead = 0;
        if (digits >= 38) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "numeric literal '%s' has more than 38 digits", text);
        v = v * 10 + (*q - '0');
        digits++;
        if (dot && q > dot) scale++;
    }
    if (digits < scale) digits = scale;
    if (digits == 0) digits = 1;
    return lit_decimal(neg ? -v : v, digits, scale, out);
}

/* Is `e` a string literal written as a quoted constant? (Those take the
 * type of what they are compared with, as PostgreSQL's unknown literals.) */
bool bind_is_string_literal(const floe_expr *e) {
    return e->kind == FLOE_EXPR_LITERAL && e->literal->type->id == FLOE_TYPE_STRING &&
           !floe_array_is_null(e->literal, 0);
}

static int parse_digits(const char **p, int max, int64_t *v) {
    int n = 0;
    *v = 0;
    while (n < max && floe_ascii_isdigit(**p)) {
        *v = *v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n;
}

/* "YYYY-MM-DD[ |T]HH:MM[:SS[.ffffff]][Z|+HH[:MM]|-HH[:MM]]" → days and
 * micros of day (after applying an offset when `utc`). */
static floe_status parse_datetime(const char *text, bool want_time, int64_t *days, int64_t *micros, bool *has_tz) {
    const char *p = text;
    while (floe_ascii_isspace(*p)) p++;
    int64_t y, m, d, hh = 0, mi = 0, ss = 0, frac = 0;
    bool neg = *p == '-';
    if (neg) p++;
    if (parse_digits(&p, 6, &y) < 4 || *p++ != '-' || parse_digits(&p, 2, &m) < 1 || *p++ != '-' ||
        parse_digits(&p, 2, &d) < 1)
        goto bad;
    if (neg) y = -y;
    *has_tz = false;
    int64_t off = 0;
    if (*p == ' ' || *p == 'T' || *p == 't') {
        while (*p == ' ' || *p == 'T' || *p == 't') p++;
        if (*p) {
            if (parse_digits(&p, 2, &hh) < 1 || *p++ != ':' || parse_digits(&p, 2, &mi) < 2) goto bad;
            if (*p == ':') {
                p++;
                if (parse_digits(&p, 2, &ss) < 2) goto bad;
                if (*p == '.') {
                    p++;
                    int64_t f;
                    const char *s0 = p;
                    int n = parse_digits(&p, 9, &f);
                    if (n == 0) goto bad;
                    (void)s0;
                    while (n < 6) { f *= 10; n++; }
                    while (n > 6) { f /= 10; n--; }
                    frac = f;
                    while (floe_ascii_isdigit(*p)) p++;
                }
            }
            while (*p == ' ') p++;
            if (*p == 'Z' || *p == 'z') {
                *has_tz = true;
                p++;
            } else if (*p == '+' || *p == '-') {
                int sign = *p == '-' ? -1 : 1;
                p++;
                int64_t oh, om = 0;
                if (parse_digits(&p, 2, &oh) < 1) goto bad;
                if (*p == ':') p++;
                parse_digits(&p, 2, &om);
                off = sign * (oh * 3600 + om * 60);
                *has_tz = true;
            } else if (strncasecmp(p, "utc", 3) == 0) {
                *has_tz = true;
                p += 3;
            }
        }
    }
    while (floe_ascii_isspace(*p)) p++;
    if (*p || m < 1 || m > 12 || d < 1 || d > 31 || hh > 24 || mi > 59 || ss > 60) goto bad;
    int64_t dd = floe_ice_days_from_civil(y, (int)m, (int)d);
    int64_t yy;
    int mm2, dd2;
    floe_ice_civil_from_days(dd, &yy, &mm2, &dd2);
    if (yy != y || mm2 != m || dd2 != d) goto bad;
    (void)want_time;
    *days = dd;
    *micros = ((hh * 60 + mi) * 60 + ss - off) * 1000000 + frac;
    return NULL;
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid %s value '%s'", want_time ? "timestamp" : "date", text);
}

static floe_status parse_time(const char *text, int64_t *micros) {
    const char *p = text;
    int64_t hh, mi, ss = 0, frac = 0;
    if (parse_digits(&p, 2, &hh) < 1 || *p++ != ':' || parse_digits(&p, 2, &mi) < 2) goto bad;
    if (*p == ':') {
        p++;
        if (parse_digits(&p, 2, &ss) < 2) goto bad;
        if (*p == '.') {
            p++;
            int n = parse_digits(&p, 9, &frac);
            while (n < 6) { frac *= 10; n++; }
            while (n > 6) { frac /= 10; n--; }
        }
    }
    if (*p || hh > 24 || mi > 59 || ss > 60) goto bad;
    *micros = ((hh * 60 + mi) * 60 + ss) * 1000000 + frac;
    return NULL;
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid time value '%s'", text);
}

floe_status bind_interval_literal(floe_interval v, floe_expr **out) {
    floe_builder *b = NULL;
    floe_array *a = NULL;
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INTERVAL), 1, &b);
    if (!st) st = floe_builder_append_fixed(b, &v);
    if (!st) st = floe_builder_finish(b, &a);
    if (!st) st = floe_expr_literal(a, out);
    floe_array_release(a);
    floe_builder_free(b);
    return st;
}

/* A literal of `type` from SQL text (typed string constants, string
 * literals compared with typed columns). */
floe_status bind_literal_from_text(const char *text, const floe_type *type, floe_expr **out) {
    switch (type->id) {
    case FLOE_TYPE_STRING: return floe_expr_lit_string(text, out);
    case FLOE_TYPE_BOOL: {
        bool v;
        FLOE_TRY(floe_parse_bool(floe_str_trim(floe_str_c(text)), "boolean", &v));
        return floe_expr_lit_bool(v, out);
    }
    case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: {
        /* PostgreSQL's int4in / int8in: blanks around, an optional sign,
         * digits only ('12.5' and '1e3' are errors). */
        const char *tn = type->id == FLOE_TYPE_INT32 ? "integer" : "bigint";
        int64_t v;
        floe_status st = floe_parse_int64(floe_str_trim(floe_str_c(text)), tn, &v);
        if (st) {
            bool range = strstr(floe_status_message(st), "out of range") != NULL;
            floe_status_free(st);
            if (range) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "value \"%s\" is out of range for type %s", text, tn);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type %s: \"%s\"", tn, text);
        }
        if (type->id == FLOE_TYPE_INT32) {
            if (v < INT32_MIN || v > INT32_MAX)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "value \"%s\" is out of range for type integer", text);
            return floe_expr_lit_int32((int32_t)v, out);
        }
        return floe_expr_lit_int64(v, out);
    }
    case FLOE_TYPE_FLOAT32: case FLOE_TYPE_FLOAT64: {
        double v;
        floe_status st = floe_parse_double(floe_str_trim(floe_str_c(text)), "double", &v);
        if (st) {
            floe_status_free(st);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type %s: \"%s\"",
                              type->id == FLOE_TYPE_FLOAT64 ? "double precision" : "real", text);
        }
        if (type->id == FLOE_TYPE_FLOAT64) return floe_expr_lit_double(v, out);
        floe_expr *d = NULL;
        FLOE_TRY(floe_expr_lit_double(v, &d));
        floe_status cst = floe_expr_cast(d, floe_type_primitive(FLOE_TYPE_FLOAT32), out);
        floe_expr_release(d);
        return cst;
    }
    case FLOE_TYPE_DECIMAL128: {
        /* The run-time text-to-decimal cast (exec/expr/cast.c), evaluated
         * now: it rounds half away from zero to the scale ('12.345' as
         * decimal(10,2) is 12.35) and reads exponents ('1e3'). */
        floe_expr *sl = NULL, *ce = NULL, *lit = NULL;
        floe_array *a = NULL;
        floe_status st = floe_expr_lit_string(text, &sl);
        if (!st) st = floe_expr_cast(sl, (floe_type *)type, &ce);
        if (!st) st = bind_eval_const(ce, &a);
        if (!st) st = floe_expr_literal(a, &lit);
        floe_array_release(a);
        floe_expr_release(ce);
        floe_expr_release(sl);
        if (!st) *out = lit;
        return st;
    }
    case FLOE_TYPE_DATE32: {
        int64_t days, micros;
        bool tz;
        FLOE_TRY(parse_datetime(text, false, &days, &micros, &tz));
        return bind_lit_typed_int(FLOE_TYPE_DATE32, days, out);
    }
    case FLOE_TYPE_TIME64_US: {
        int64_t micros;
        FLOE_TRY(parse_time(floe_str_trim(floe_str_c(text)).ptr, &micros));
        return bind_lit_typed_int(FLOE_TYPE_TIME64_US, micros, out);
    }
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ: {
        int64_t days, micros;
        bool tz;
        FLOE_TRY(parse_datetime(text, true, &days, &micros, &tz));
        int64_t v = days * 86400000000LL + micros;
        const floe_tz *zone = floe_tz_session();
        if (!tz && zone && (type->id == FLOE_TYPE_TIMESTAMP_US_TZ || type->id == FLOE_TYPE_TIMESTAMP_NS_TZ)) {
            /* No offset written: a wall-clock time in the session zone. */
            int64_t secs = days * 86400 + micros / 1000000, sub = micros % 1000000;
            if (sub < 0) {
                secs--;
                sub += 1000000;
            }
            v = floe_tz_local_to_utc(zone, secs) * 1000000 + sub;
        }
        if (type->id == FLOE_TYPE_TIMESTAMP_NS || type->id == FLOE_TYPE_TIMESTAMP_NS_TZ) v *= 1000;
        return bind_lit_typed_int(type->id, v, out);
    }
    case FLOE_TYPE_INTERVAL: {
        floe_interval v;
        FLOE_TRY(floe_interval_parse(text, (int64_t)strlen(text), 0, &v));
        return bind_interval_literal(v, out);
    }
    case FLOE_TYPE_UUID: {
        uint8_t bytes[16];
        int k = 0;
        for (const char *p = text; *p && k < 32; p++) {
            if (*p == '-') continue;
            int h = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) >= 'a' && tolower((unsigned char)*p) <= 'f') ? tolower((unsigned char)*p) - 'a' + 10 : -1;
            if (h < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid uuid '%s'", text);
            if (k % 2 == 0) bytes[k / 2] = (uint8_t)(h << 4);
            else bytes[k / 2] |= (uint8_t)h;
            k++;
        }
        if (k != 32) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid uuid '%s'", text);
        floe_builder *b = NULL;
        floe_array *a = NULL;
        floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_UUID), 1, &b);
        if (!st) st = floe_builder_append_fixed(b, bytes);
        if (!st) st = floe_builder_finish(b, &a);
        if (!st) st = floe_expr_literal(a, out);
        floe_array_release(a);
        floe_builder_free(b);
        return st;
    }
    case FLOE_TYPE_BINARY: case FLOE_TYPE_FIXED_BINARY: {
        /* bytea input: '\x0102ff' is hex, anything else the raw bytes. */
        size_t len = strlen(text);
        uint8_t *bytes = floe_malloc(len + 1);
        if (!bytes) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        size_t n = 0;
        floe_status st = NULL;
        if (len >= 2 && text[0] == '\\' && (text[1] == 'x' || text[1] == 'X')) {
            for (size_t i = 2; i < len && !st; i += 2) {
                int hi = isxdigit((unsigned char)text[i]) ? (isdigit((unsigned char)text[i]) ? text[i] - '0' : (tolower((unsigned char)text[i]) - 'a' + 10)) : -1;
                int lo = i + 1 < len && isxdigit((unsigned char)text[i + 1])
                             ? (isdigit((unsigned char)text[i + 1]) ? text[i + 1] - '0' : (tolower((unsigned char)text[i + 1]) - 'a' + 10))
                             : -1;
                if (hi < 0 || lo < 0) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid hexadecimal bytes '%s'", text);
                else bytes[n++] = (uint8_t)(hi << 4 | lo);
            }
        } else {
            memcpy(bytes, text, len);
            n = len;
        }
        if (!st && type->id == FLOE_TYPE_FIXED_BINARY && (int32_t)n != type->byte_width)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' is %zu bytes, not the %d of fixed[%d]", text, n,
                            (int)type->byte_width, (int)type->byte_width);
        floe_builder *b = NULL;
        floe_array *a = NULL;
        if (!st) st = floe_builder_new((floe_type *)type, 1, &b);
        if (!st) st = type->id == FLOE_TYPE_BINARY ? floe_builder_append_binary(b, bytes, (int64_t)n)
                                                    : floe_builder_append_fixed(b, bytes);
        if (!st) st = floe_builder_finish(b, &a);
        if (!st) st = floe_expr_literal(a, out);
        floe_array_release(a);
        floe_builder_free(b);
        floe_free(bytes);
        return st;
    }
    case FLOE_TYPE_LIST: {
        /* '{1,2}'::int[]: PostgreSQL's array text, read by the cast (cast_list.c) */
        floe_expr *lit = NULL, *cast = NULL;
        floe_array *a = NULL;
        floe_status st = floe_expr_lit_string(text, &lit);
        if (!st) st = floe_expr_cast(lit, (floe_type *)type, &cast);
        if (!st) st = bind_eval_const(cast, &a);
        if (!st) st = floe_expr_literal(a, out);
        floe_array_release(a);
        floe_expr_release(cast);
        floe_expr_release(lit);
        return st;
    }
    default: {
        floe_buf tn = FLOE_BUF_INIT;
        floe_status st = floe_type_to_string(type, &tn);
        if (!st) st = floe_error(FLOE_ERR_UNSUPPORTED, "cannot read '%s' as %s", text, floe_buf_cstr(&tn));
        floe_buf_free(&tn);
        return st;
    }
    }
}

/* The text of a string literal expression (borrowed into buf). */
floe_status bind_literal_text(const floe_expr *e, floe_buf *buf) {
    floe_strview v = floe_array_get_str(e->literal, 0);
    floe_buf_clear(buf);
    return floe_buf_append(buf, v.data, (size_t)v.len);
}

static bool is_temporal(floe_type_id id) {
    return id == FLOE_TYPE_DATE32 || id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ ||
           id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ || id == FLOE_TYPE_TIME64_US;
}
static bool is_ts(floe_type_id id) {
    return id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ || id == FLOE_TYPE_TIMESTAMP_NS ||
           id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}
bool bind_is_num(floe_type_id id) {
    return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64 || id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64 ||
           id == FLOE_TYPE_DECIMAL128;
}

floe_status bind_coerce(bind_ectx *c, floe_expr *e, const floe_type *type, int32_t location, floe_expr **out) {
    *out = NULL;
    if (bind_is_string_literal(e) && type->id != FLOE_TYPE_STRING && type->id != FLOE_TYPE_NULL) {
        floe_buf t = FLOE_BUF_INIT;
        floe_status st = bind_literal_text(e, &t);
        if (!st) st = bind_literal_from_text(floe_buf_cstr(&t), type, out);
        floe_buf_free(&t);
        return bind_at(c->s, location, st);
    }
    floe_type *et = NULL;
    FLOE_TRY(bind_at(c->s, location, bind_type_of(c, e, &et)));
    bool same = floe_type_equals(et, type) || et->id == FLOE_TYPE_NULL || type->id == FLOE_TYPE_NULL;
    floe_type_release(et);
    if (same) {
        *out = floe_expr_retain(e);
        return NULL;
    }
    return floe_expr_cast(e, (floe_type *)type, out);
}

/* Make the two operands of a comparison or arithmetic agree where
 * PostgreSQL would convert implicitly: untyped string literals take the
 * other side's type; a date meets a timestamp as a timestamp. */
floe_status bind_unify_pair(bind_ectx *c, floe_expr **l, floe_expr **r, int32_t location) {
    floe_type *tl = NULL, *tr = NULL;
    floe_status st = bind_type_of(c, *l, &tl);
    if (!st) st = bind_type_of(c, *r, &tr);
    if (st) goto done;
    floe_expr *nl = NULL, *nr = NULL;
    if (bind_is_string_literal(*l) && tr->id != FLOE_TYPE_STRING && tr->id != FLOE_TYPE_NULL && !floe_type_is_nested(tr)) {
        st = bind_coerce(c, *l, tr, location, &nl);
    } else if (bind_is_string_literal(*r) && tl->id != FLOE_TYPE_STRING && tl->id != FLOE_TYPE_NULL &&
               !floe_type_is_nested(tl)) {
        st = bind_coerce(c, *r, tl, location, &nr);
    } else if (is_ts(tl->id) && is_ts(tr->id) && tl->id != tr->id) {
        /* Timestamps of different kinds: a constant takes the other side's
         * kind; between two columns the plain one is read as UTC. */
        bool lc = !bind_expr_has_columns(*l), rc = !bind_expr_has_columns(*r);
        if (lc && !rc) st = floe_expr_cast(*l, tr, &nl);
        else if (rc && !lc) st = floe_expr_cast(*r, tl, &nr);
        else if (tl->id == FLOE_TYPE_TIMESTAMP_US || tl->id == FLOE_TYPE_TIMESTAMP_NS) st = floe_expr_cast(*l, tr, &nl);
        else st = floe_expr_cast(*r, tl, &nr);
    } else if ((tl->id == FLOE_TYPE_FLOAT32 || tl->id == FLOE_TYPE_FLOAT64) && tr->id == FLOE_TYPE_DECIMAL128 &&
               !bind_expr_has_columns(*r)) {
        /* A numeric constant meets a float column as a float of its kind
         * (1.23 = real_col matches the stored 1.23f). */
        st = floe_expr_cast(*r, tl, &nr);
    } else if ((tr->id == FLOE_TYPE_FLOAT32 || tr->id == FLOE_TYPE_FLOAT64) && tl->id == FLOE_TYPE_DECIMAL128 &&
               !bind_expr_has_columns(*l)) {
        st = floe_expr_cast(*l, tr, &nl);
    } else if (tl->id == FLOE_TYPE_FLOAT32 && tr->id == FLOE_TYPE_FLOAT64 && !bind_expr_has_columns(*r)) {
        st = floe_expr_cast(*r, tl, &nr);
    } else if (tr->id == FLOE_TYPE_FLOAT32 && tl->id == FLOE_TYPE_FLOAT64 && !bind_expr_has_columns(*l)) {
        st = floe_expr_cast(*l, tr, &nl);
    } else if (tl->id == FLOE_TYPE_DATE32 && is_temporal(tr->id) && tr->id != FLOE_TYPE_DATE32 &&
               tr->id != FLOE_TYPE_TIME64_US) {
        st = floe_expr_cast(*l, tr, &nl);
    } else if (tr->id == FLOE_TYPE_DATE32 && is_temporal(tl->id) && tl->id != FLOE_TYPE_DATE32 &&
               tl->id != FLOE_TYPE_TIME64_US) {
        st = floe_expr_cast(*r, tl, &nr);
    }
    if (nl) {
        floe_expr_release(*l);
        *l = nl;
    }
    if (nr) {
        floe_expr_release(*r);
        *r = nr;
    }
done:
    floe_type_release(tl);
    floe_type_release(tr);
    return st;
}

/* Type-check a freshly built node, positioning any error. */
floe_status bind_check(bind_ectx *c, floe_expr *e, int32_t location) {
    floe_type *t = NULL;
    floe_status st = bind_type_of(c, e, &t);
    floe_type_release(t);
    return bind_at(c->s, location, st);
}
