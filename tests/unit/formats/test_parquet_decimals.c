/* Parquet DECIMAL columns as other writers store them: INT32, INT64,
 * FIXED_LEN_BYTE_ARRAY of every width from 1 to 16 (and wider with sign
 * fill), BYTE_ARRAY in the fewest bytes, negative values, nulls, converted
 * type only — read exactly as decimal128; and precision above 38 (pandas /
 * Arrow decimal256) read as float64, with the rounding a double has. */
#include <math.h>

#include "floe_test.h"
#include "base/buffer.h"
#include "floe/columnar.h"
#include "formats/parquet/reader.h"
#include "../../tools/pq_fixture.h"

/* The value of a fixture cell as a decimal integer text (independent of
 * floe's reader: big-endian two's complement to digits by long division). */
static void cell_text(const pqfx_col *c, int row, char *out) {
    if (c->kind == PQFX_I32 || c->kind == PQFX_I64) {
        sprintf(out, "%lld", (long long)c->ints[row]);
        return;
    }
    int len = c->kind == PQFX_FIXED ? c->width : c->lens[row];
    uint8_t mag[48];
    memcpy(mag, c->bytes[row], (size_t)len);
    bool neg = len > 0 && (mag[0] & 0x80);
    if (neg) {
        unsigned carry = 1;
        for (int i = len - 1; i >= 0; i--) {
            unsigned v = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char digits[160];
    int nd = 0;
    for (;;) {
        bool zero = true;
        unsigned rem = 0;
        for (int i = 0; i < len; i++) {
            unsigned cur = rem * 256 + mag[i];
            mag[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
            if (mag[i]) zero = false;
        }
        digits[nd++] = (char)('0' + rem);
        if (zero) break;
    }
    int k = 0;
    if (neg) out[k++] = '-';
    while (nd > 0) out[k++] = digits[--nd];
    out[k] = 0;
}

/* "-12345" at scale 3 -> "-12.345"; scale 0 keeps the integer. */
static void scaled(const char *integer, int scale, char *out) {
    bool neg = *integer == '-';
    if (neg) integer++;
    int n = (int)strlen(integer), m = 0, k = 0;
    char all[200];
    for (int i = n; i <= scale; i++) all[m++] = '0'; /* at least one digit before the point */
    memcpy(all + m, integer, (size_t)n);
    m += n;
    if (neg) out[k++] = '-';
    for (int i = 0; i < m; i++) {
        if (scale > 0 && i == m - scale) out[k++] = '.';
        out[k++] = all[i];
    }
    out[k] = 0;
}

static void write_fixture(const char *name, char *path, size_t cap, pqfx_col *cols, int *n) {
    char dir[1024];
    floe_test_tmpdir(dir, sizeof dir, name);
    snprintf(path, cap, "%s/%s.parquet", dir, name);
    if (!strcmp(name, "decimals")) *n = pqfx_decimals(cols);
    else *n = pqfx_big_decimals(cols);
    assert_ok(pqfx_write(path, cols, *n, PQFX_ROWS));
}

static floe_batch *read_all(const char *path, floe_pq_reader **r) {
    assert_ok(floe_pq_reader_open_path(path, NULL, r));
    floe_batch *b = NULL;
    assert_ok(floe_pq_reader_next(*r, &b));
    assert_non_null(b);
    assert_int_equal(b->num_rows, PQFX_ROWS);
    return b;
}

static void decimals_of_every_physical_type_and_width(void **state) {
    (void)state;
    pqfx_col cols[32];
    int n = 0;
    char path[4200];
    write_fixture("decimals", path, sizeof path, cols, &n);
    floe_pq_reader *r = NULL;
    floe_batch *b = read_all(path, &r);
    assert_int_equal(b->num_columns, n);
    floe_buf got = FLOE_BUF_INIT;
    for (int c = 0; c < n; c++) {
        const floe_array *a = b->columns[c];
        const floe_field *f = floe_schema_field(floe_pq_reader_schema(r), c);
        if (a->type->id != FLOE_TYPE_DECIMAL128) fail_msg("%s: type %s", f->name, floe_type_id_name(a->type->id));
        int32_t scale = cols[c].scale >= 0 ? cols[c].scale : cols[c].logical.scale;
        int32_t prec = cols[c].precision > 0 ? cols[c].precision : cols[c].logical.precision;
        assert_int_equal(a->type->precision, prec);
        assert_int_equal(a->type->scale, scale);
        for (int i = 0; i < PQFX_ROWS; i++) {
            if (cols[c].null[i]) {
                if (!floe_array_is_null(a, i)) fail_msg("%s row %d: not null", f->name, i);
                continue;
            }
            char integer[200], want[220];
            cell_text(&cols[c], i, integer);
            scaled(integer, scale, want);
            floe_buf_clear(&got);
            assert_ok(floe_format_value(a, i, &got));
            if (strcmp(floe_buf_cstr(&got), want) != 0)
                fail_msg("%s row %d: got %s, want %s", f->name, i, floe_buf_cstr(&got), want);
        }
    }
    floe_buf_free(&got);
    floe_batch_release(b);
    floe_pq_reader_close(r);
}

static void precision_above_38_reads_as_double(void **state) {
    (void)state;
    pqfx_col cols[32];
    int n = 0;
    char path[4200];
    write_fixture("big_decimals", path, sizeof path, cols, &n);
    floe_pq_reader *r = NULL;
    floe_batch *b = read_all(path, &r);
    assert_int_equal(b->num_columns, n);
    for (int c = 0; c < n; c++) {
        const floe_array *a = b->columns[c];
        const char *name = cols[c].name;
        if (a->type->id != FLOE_TYPE_FLOAT64) fail_msg("%s: type %s, want float64", name, floe_type_id_name(a->type->id));
        for (int i = 0; i < PQFX_ROWS; i++) {
            if (cols[c].null[i]) {
                if (!floe_array_is_null(a, i)) fail_msg("%s row %d: not null", name, i);
                continue;
            }
            char integer[200], want[220];
            cell_text(&cols[c], i, integer);
            scaled(integer, cols[c].scale, want);
            long double exact = strtold(want, NULL);
            double v = floe_array_get_double(a, i);
            long double err = fabsl((long double)v - exact);
            if (err > fabsl(exact) * 4e-16L)
                fail_msg("%s row %d: got %.17g, want %s", name, i, v, want);
        }
    }
    floe_batch_release(b);
    floe_pq_reader_close(r);
}

FLOE_TEST_MAIN(cmocka_unit_test(decimals_of_every_physical_type_and_width),
               cmocka_unit_test(precision_above_38_reads_as_double))
