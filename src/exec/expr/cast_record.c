/*
 * cast_record.c — ROW(...)::text: a struct column as PostgreSQL's record
 * text (record_out's quoting rules; see cast_record.h).  Each field column
 * is cast to text once per batch (floe_cast_column_to_text, so a nested
 * record or list prints through its own cast), then the rows are joined.
 */
#include <ctype.h>
#include <string.h>

#include "base/buffer.h"
#include "exec/expr/cast_list.h"
#include "exec/expr/cast_record.h"
#include "floe/memory.h"

static bool needs_quotes(const char *s, int64_t n) {
    if (n == 0) return true;
    for (int64_t i = 0; i < n; i++)
        if (strchr("\"\\(),", s[i]) || isspace((unsigned char)s[i])) return true;
    return false;
}

static floe_status put_field(floe_buf *o, const char *s, int64_t n) {
    if (!needs_quotes(s, n)) return floe_buf_append(o, s, (size_t)n);
    FLOE_TRY(floe_buf_append_byte(o, '"'));
    for (int64_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\') FLOE_TRY(floe_buf_append_byte(o, (uint8_t)s[i]));
        FLOE_TRY(floe_buf_append_byte(o, (uint8_t)s[i]));
    }
    return floe_buf_append_byte(o, '"');
}

floe_status floe_cast_struct_to_text(const floe_array *a, int64_t n, floe_array **out) {
    *out = NULL;
    int32_t k = a->n_children;
    floe_array **kids = floe_calloc((size_t)k + 1, sizeof *kids), **text = floe_calloc((size_t)k + 1, sizeof *text);
    floe_status st = kids && text ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "record text: out of memory");
    /* slot r of the struct is slot offset + r of each field */
    for (int32_t j = 0; j < k && !st; j++) st = floe_array_slice(a->children[j], a->offset, a->length, &kids[j]);
    for (int32_t j = 0; j < k && !st; j++)
        if (kids[j]->type->id != FLOE_TYPE_BOOL && kids[j]->type->id != FLOE_TYPE_NULL)
            st = floe_cast_column_to_text(kids[j], &text[j]);
    floe_builder *b = NULL;
    if (!st) st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b);
    floe_buf row = FLOE_BUF_INIT;
    for (int64_t r = 0; r < n && !st; r++) {
        int64_t s = a->length == 1 ? 0 : r;
        if (floe_array_is_null(a, s)) {
            st = floe_builder_append_null(b);
            continue;
        }
        row.len = 0;
        st = floe_buf_append_byte(&row, '(');
        for (int32_t j = 0; j < k && !st; j++) {
            if (j > 0) st = floe_buf_append_byte(&row, ',');
            if (st || floe_array_is_null(kids[j], s)) continue; /* NULL: nothing */
            if (kids[j]->type->id == FLOE_TYPE_BOOL) {
                st = floe_buf_append_byte(&row, floe_array_get_bool(kids[j], s) ? 't' : 'f');
            } else {
                floe_strview v = floe_array_get_str(text[j], s);
                st = put_field(&row, v.data ? v.data : "", v.len);
            }
        }
        if (!st) st = floe_buf_append_byte(&row, ')');
        if (!st) st = floe_builder_append_binary(b, row.data, (int64_t)row.len);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_buf_free(&row);
    for (int32_t j = 0; j < k; j++) {
        if (kids) floe_array_release(kids[j]);
        if (text) floe_array_release(text[j]);
    }
    floe_free(kids);
    floe_free(text);
    return st;
}
