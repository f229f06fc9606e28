/*
 * fuzz_variant.c — libFuzzer target for the Variant binary encoding
 * (floe/variant.h, src/columnar/variant*.c).
 *
 * The input is treated, in turn, as:
 *   - metadata followed by a value (the layout of parquet-testing's
 *     shredded_variant *.variant.bin files), and as a value after a
 *     metadata of input[0] bytes: checked, printed as JSON, walked by
 *     paths; a variant that checks must print, equal itself, and survive a
 *     re-encoding (decode, rebuild with the encoder, check again, equal);
 *   - a variant array slot (floe_variant_array_from_struct over one row);
 *   - path text, parsed and followed through a fixed variant.
 * Nothing may crash, leak or read outside the input, whatever it holds.
 *
 * Build and run (see CMakeLists.txt, option FLOE_FUZZ):
 *   CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug \
 *         -DFLOE_FUZZ=ON -DFLOE_SANITIZE=ON
 *   cmake --build build/fuzz --target fuzz_variant
 *   build/fuzz/fuzz_variant -max_total_time=30 CORPUS_DIR
 * A good seed corpus: shredded_variant/ *.variant.bin files, and the variant/
 * vectors' .metadata and .value files concatenated (scripts/fuzz-smoke.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "floe/variant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(floe_status st) { floe_status_free(st); }

/* Encode v again from its decoded parts. */
static floe_status reencode(const floe_variant_meta *m, const floe_variant *v, floe_buf *out, int depth) {
    if (depth > FLOE_VARIANT_MAX_DEPTH) return floe_error(FLOE_ERR_CORRUPT, "deep");
    switch (v->kind) {
    case FLOE_VARIANT_NULL: return floe_variant_put_null(out);
    case FLOE_VARIANT_TRUE: case FLOE_VARIANT_FALSE: return floe_variant_put_bool(out, v->kind == FLOE_VARIANT_TRUE);
    case FLOE_VARIANT_FLOAT: return floe_variant_put_float(out, v->u.f);
    case FLOE_VARIANT_DOUBLE: return floe_variant_put_double(out, v->u.d);
    case FLOE_VARIANT_DECIMAL4: case FLOE_VARIANT_DECIMAL8: case FLOE_VARIANT_DECIMAL16:
        return floe_variant_put_decimal(out, v->kind, v->u.dec.unscaled, v->u.dec.scale);
    case FLOE_VARIANT_STRING: return floe_variant_put_string(out, v->u.bytes.p, v->u.bytes.len);
    case FLOE_VARIANT_BINARY: return floe_variant_put_binary(out, v->u.bytes.p, v->u.bytes.len);
    case FLOE_VARIANT_UUID: return floe_variant_put_uuid(out, v->u.bytes.p);
    case FLOE_VARIANT_OBJECT: case FLOE_VARIANT_ARRAY: {
        bool obj = v->kind == FLOE_VARIANT_OBJECT;
        uint32_t n = v->u.nest.n;
        floe_buf vals = FLOE_BUF_INIT;
        floe_variant_field_ref *refs = floe_calloc((size_t)n + 1, sizeof *refs);
        uint32_t *ends = floe_calloc((size_t)n + 1, sizeof *ends);
        floe_status st = refs && ends ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "fuzz");
        for (uint32_t i = 0; i < n && !st; i++) {
            floe_variant c;
            uint32_t off = (uint32_t)vals.len;
            st = floe_variant_element(v, i, &c);
            if (!st) st = reencode(m, &c, &vals, depth + 1);
            if (!st && obj) {
                floe_strview name;
                st = floe_variant_field_id(v, i, &refs[i].id);
                if (!st) st = floe_variant_meta_name(m, refs[i].id, &name);
                if (!st) {
                    refs[i].name = name.data;
                    refs[i].name_len = (uint32_t)name.len;
                    refs[i].off = off;
                    refs[i].len = (uint32_t)vals.len - off;
                }
            }
            ends[i] = (uint32_t)vals.len;
        }
        /* Fields go in in the order written: sorting them must keep it. */
        if (!st && obj) st = floe_variant_sort_fields(refs, n);
        if (!st) st = obj ? floe_variant_put_object(out, refs, n, vals.data, vals.len)
                          : floe_variant_put_array(out, ends, n, vals.data, vals.len);
        floe_buf_free(&vals);
        floe_free(refs);
        floe_free(ends);
        return st;
    }
    default: return floe_variant_put_int(out, v->kind, v->u.i);
    }
}

static void exercise(const uint8_t *meta, size_t mn, const uint8_t *value, size_t vn) {
    /* Unchecked walks first: they must fail cleanly on bad bytes. */
    floe_buf j = FLOE_BUF_INIT;
    ignore(floe_variant_bytes_to_json(meta, mn, value, vn, &j));
    floe_buf_free(&j);
    floe_variant_meta m;
    floe_variant v;
    floe_status bad = floe_variant_check(meta, mn, value, vn);
    if (bad) {
        floe_status_free(bad);
        floe_status st = floe_variant_meta_open(meta, mn, true, &m);
        if (!st) st = floe_variant_open(value, vn, true, &v);
        if (!st) {
            static const char *const paths[] = {"$.a", "$[0]", "$[1].b", "$['']"};
            for (int k = 0; k < 4; k++) {
                floe_variant_path p;
                floe_variant out;
                bool found;
                if (floe_variant_path_parse(paths[k], strlen(paths[k]), &p)) abort();
                ignore(floe_variant_path_get(&m, &v, &p, &out, &found));
                floe_variant_path_free(&p);
            }
        }
        floe_status_free(st);
        return;
    }
    /* A valid variant: it prints, equals itself and re-encodes. */
    if (floe_variant_meta_open(meta, mn, true, &m) || floe_variant_open(value, vn, true, &v)) abort();
    floe_status st = floe_variant_to_json(&m, &v, &j);
    if (st) abort();
    floe_buf_free(&j);
    bool eq = false;
    if (floe_variant_equal(&m, &v, &m, &v, &eq) || !eq) abort();
    floe_buf again = FLOE_BUF_INIT;
    if (reencode(&m, &v, &again, 0)) abort();
    floe_variant w;
    if (floe_variant_check(meta, mn, again.data, again.len)) abort();
    if (floe_variant_open(again.data, again.len, true, &w) || floe_variant_equal(&m, &v, &m, &w, &eq) || !eq) abort();
    floe_buf_free(&again);
    /* The same bytes as a variant column slot. */
    floe_builder *b = NULL;
    floe_array *a = NULL, *va = NULL;
    floe_field f[2];
    floe_type *bin = floe_type_primitive(FLOE_TYPE_BINARY), *st_type = NULL;
    if (floe_field_init(&f[0], "metadata", bin, false, -1) || floe_field_init(&f[1], "value", bin, false, -1) ||
        floe_type_struct(f, 2, &st_type) || floe_builder_new(st_type, 1, &b))
        abort();
    if (floe_builder_append_binary(floe_builder_child(b, 0), meta, (int64_t)mn) ||
        floe_builder_append_binary(floe_builder_child(b, 1), value, (int64_t)vn) || floe_builder_append_valid(b) ||
        floe_builder_finish(b, &a) || floe_variant_array_from_struct(a, &va))
        abort();
    floe_buf text = FLOE_BUF_INIT;
    if (floe_format_value(va, 0, &text)) abort();
    floe_buf_free(&text);
    floe_array_release(va);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(st_type);
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Copies of exactly the bytes each interpretation uses, so a read past
     * them is a sanitizer report. */
    floe_variant_meta m;
    floe_status st = floe_variant_meta_open(data, size, false, &m);
    if (!st) {
        uint8_t *meta = floe_malloc(m.size + 1), *value = floe_malloc(size - m.size + 1);
        if (!meta || !value) abort();
        memcpy(meta, data, m.size);
        memcpy(value, data + m.size, size - m.size);
        exercise(meta, m.size, value, size - m.size);
        floe_free(meta);
        floe_free(value);
    }
    floe_status_free(st);
    if (size >= 1) {
        size_t mn = data[0] < size - 1 ? data[0] : size - 1;
        uint8_t *meta = floe_malloc(mn + 1), *value = floe_malloc(size - 1 - mn + 1);
        if (!meta || !value) abort();
        memcpy(meta, data + 1, mn);
        memcpy(value, data + 1 + mn, size - 1 - mn);
        exercise(meta, mn, value, size - 1 - mn);
        floe_free(meta);
        floe_free(value);
    }
    /* The input as a path through a fixed variant: {"a":[1,{"b":null}]}. */
    static const uint8_t fm[] = {0x11, 0x02, 0x00, 0x01, 0x02, 'a', 'b'};
    static const uint8_t fv[] = {0x02, 1, 0, 0, 13, 0x03, 2, 0, 2, 8, 3 << 2, 1, 0x02, 1, 1, 0, 1, 0};
    floe_variant_path p;
    floe_status ps = floe_variant_path_parse((const char *)data, size, &p);
    if (!ps) {
        floe_variant_meta pm;
        floe_variant pv, out;
        bool found;
        if (floe_variant_meta_open(fm, sizeof fm, true, &pm) || floe_variant_open(fv, sizeof fv, true, &pv)) abort();
        ignore(floe_variant_path_get(&pm, &pv, &p, &out, &found));
        floe_variant_path_free(&p);
    }
    floe_status_free(ps);
    return 0;
}
