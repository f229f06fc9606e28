/*
 * variant_util.h — helpers the variant tests share: whole files read into
 * memory, a variant's JSON text as a C string, and the JSON expectations
 * of parquet-testing's data_dictionary.json compared loosely (numbers as
 * numbers within a float's precision).
 */
#ifndef FLOE_TEST_VARIANT_UTIL_H
#define FLOE_TEST_VARIANT_UTIL_H

#include <jansson.h>
#include <math.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "floe/variant.h"
#include "floe_test.h"

/* The bytes of a file (floe_free them); fails the test when unreadable. */
static inline uint8_t *vt_slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = floe_malloc((size_t)len + 1);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) fail_msg("cannot read %s", path);
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* JSON text of a (metadata, value) pair; NULL with *err set on failure.
 * The text is floe_malloc'd. */
static inline char *vt_json(const uint8_t *m, size_t mn, const uint8_t *v, size_t vn, floe_status *err) {
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_variant_check(m, mn, v, vn);
    if (!st) st = floe_variant_bytes_to_json(m, mn, v, vn, &b);
    *err = st;
    if (st) {
        floe_buf_free(&b);
        return NULL;
    }
    size_t len;
    char *s = (char *)floe_buf_detach(&b, &len);
    return s ? s : floe_strdup("");
}

/* Loose equality of JSON documents: numbers by value (relative 1e-7). */
static inline bool vt_json_like(const json_t *a, const json_t *b) {
    if (json_is_number(a) && json_is_number(b)) {
        double x = json_number_value(a), y = json_number_value(b);
        return fabs(x - y) <= 1e-7 * fmax(1.0, fmax(fabs(x), fabs(y)));
    }
    if (json_typeof(a) != json_typeof(b)) return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b)) return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!vt_json_like(json_array_get(a, i), json_array_get(b, i))) return false;
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b)) return false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v) {
            json_t *w = json_object_get(b, k);
            if (!w || !vt_json_like(v, w)) return false;
        }
        return true;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

#endif
