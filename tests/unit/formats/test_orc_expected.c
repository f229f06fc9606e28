/* ORC reader against apache/orc's examples: every file that has
 * expected/<name>.jsn.gz produces exactly those rows, value by value
 * (numbers by their text: decimals to the digit, floats as the float the
 * text denotes, timestamps to the nanosecond as the ORC tools print them:
 * "YYYY-MM-DD HH:MM:SS.f" with trailing zeros dropped), and every batch is
 * a valid Arrow array. */
#include "floe_test.h"

#include <math.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/compress.h"
#include "formats/orc/reader.h"
#include "orc_json.h"

#define EX "apache__orc/examples/"

static const char *const expected_files[] = {
    "TestOrcFile.columnProjection", "TestOrcFile.emptyFile", "TestOrcFile.metaData",
    "TestOrcFile.test1", "TestOrcFile.testDate1900", "TestOrcFile.testDate2038",
    "TestOrcFile.testMemoryManagementV11", "TestOrcFile.testMemoryManagementV12",
    "TestOrcFile.testPredicatePushdown", "TestOrcFile.testSeek", "TestOrcFile.testSnappy",
    "TestOrcFile.testStringAndBinaryStatistics", "TestOrcFile.testStripeLevelStats",
    "TestOrcFile.testTimestamp", "TestOrcFile.testUnionAndTimestamp",
    "TestOrcFile.testWithoutIndex", "TestStringDictionary.testRowIndex",
    "TestVectorOrcFile.testLz4", "decimal", "nulls-at-end-snappy", "orc-file-11-format",
    "orc_index_int_string", "orc_split_elim", "orc_split_elim_cpp", "orc_split_elim_new",
    "over1k_bloom", NULL};
/* TestVectorOrcFile.testLzo has expected rows too: LZO is unsupported (its
 * test is in test_orc_corrupt.c). */

typedef struct cmp_ctx {
    const char *file;
    int64_t row;
    const char *col;
    char why[512];
} cmp_ctx;

static bool fail_at(cmp_ctx *c, const char *what, const char *want, const char *got) {
    snprintf(c->why, sizeof c->why, "%s row %lld column %s: %s: expected '%s', got '%s'", c->file,
             (long long)c->row, c->col, what, want ? want : "?", got ? got : "?");
    return false;
}

/* Drop trailing fraction zeros ("1.500" -> "1.5", "2.000" -> "2"). */
static void trim_decimal(char *s) {
    char *dot = strchr(s, '.');
    if (!dot) return;
    char *e = s + strlen(s);
    while (e > dot + 1 && e[-1] == '0') *--e = 0;
    if (e == dot + 1) *dot = 0;
    if (!strcmp(s, "-0")) strcpy(s, "0");
}

/* ORC's printed timestamp: fraction digits without trailing zeros, at least one. */
static void trim_timestamp(char *s) {
    char *plus = strstr(s, "+00");
    if (plus) *plus = 0;
    char *dot = strchr(s, '.');
    if (!dot) {
        strcat(s, ".0");
        return;
    }
    char *e = s + strlen(s);
    while (e > dot + 2 && e[-1] == '0') *--e = 0;
}

static bool cmp_value(cmp_ctx *c, const floe_array *a, int64_t i, const oj *v);

static bool cmp_struct(cmp_ctx *c, const floe_array *a, int64_t i, const oj *v) {
    const floe_type *t = a->type;
    if (v->kind != OJ_OBJ) return fail_at(c, "not an object", "object", "struct");
    bool is_union = t->n_children >= 1 && !strcmp(t->children[0].name, "tag") && oj_get(v, "tag") &&
                    oj_get(v, "value");
    if (is_union) {
        const floe_array *tags = a->children[0];
        int32_t tag = floe_array_get_int32(tags, a->offset + i);
        if (tag != atoi(oj_get(v, "tag")->s)) return fail_at(c, "union tag", oj_get(v, "tag")->s, "other");
        return cmp_value(c, a->children[1 + tag], a->offset + i, oj_get(v, "value"));
    }
    for (int32_t f = 0; f < t->n_children; f++) {
        const oj *fv = oj_get(v, t->children[f].name);
        static const oj null_v = {OJ_NULL, false, NULL, 0, NULL, NULL, 0};
        if (!cmp_value(c, a->children[f], a->offset + i, fv ? fv : &null_v)) return false;
    }
    return true;
}

static bool cmp_value(cmp_ctx *c, const floe_array *a, int64_t i, const oj *v) {
    bool null = floe_array_is_null(a, i);
    if (v->kind == OJ_NULL || null)
        return (v->kind == OJ_NULL && null) ? true
                                            : fail_at(c, "null", v->kind == OJ_NULL ? "null" : "value",
                                                      null ? "null" : "value");
    floe_buf b = FLOE_BUF_INIT;
    bool ok = true;
    char got[128];
    switch (a->type->id) {
    case FLOE_TYPE_BOOL:
        ok = v->kind == OJ_BOOL && v->b == floe_array_get_bool(a, i);
        if (!ok) fail_at(c, "bool", v->b ? "true" : "false", floe_array_get_bool(a, i) ? "true" : "false");
        break;
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_INT64: {
        long long x = a->type->id == FLOE_TYPE_INT32 ? floe_array_get_int32(a, i) : floe_array_get_int64(a, i);
        snprintf(got, sizeof got, "%lld", x);
        ok = v->kind == OJ_NUM && strtoll(v->s, NULL, 10) == x && !strchr(v->s, '.');
        if (!ok) fail_at(c, "integer", v->s, got);
        break;
    }
    case FLOE_TYPE_FLOAT32: {
        float x = floe_array_get_float(a, i), want = v->kind == OJ_NUM ? strtof(v->s, NULL) : NAN;
        snprintf(got, sizeof got, "%.9g", (double)x);
        ok = v->kind == OJ_NUM && (x == want || (isnan(x) && isnan(want)));
        if (!ok && v->kind == OJ_NUM) {
            /* some expected files print floats with 7 significant digits */
            char a7[64], b7[64];
            snprintf(a7, sizeof a7, "%.7g", (double)x);
            snprintf(b7, sizeof b7, "%.7g", strtod(v->s, NULL));
            ok = !strcmp(a7, b7);
        }
        if (!ok) fail_at(c, "float", v->s, got);
        break;
    }
    case FLOE_TYPE_FLOAT64: {
        double x = floe_array_get_double(a, i), want = v->kind == OJ_NUM ? strtod(v->s, NULL) : NAN;
        snprintf(got, sizeof got, "%.17g", x);
        ok = v->kind == OJ_NUM && (x == want || (isnan(x) && isnan(want)));
        if (!ok && v->kind == OJ_NUM) {
            /* the expected files print doubles with 14 significant digits */
            char a14[64], b14[64];
            snprintf(a14, sizeof a14, "%.14g", x);
            snprintf(b14, sizeof b14, "%.14g", want);
            ok = !strcmp(a14, b14);
        }
        if (!ok) fail_at(c, "double", v->s, got);
        break;
    }
    case FLOE_TYPE_DECIMAL128: {
        assert_ok(floe_format_decimal(floe_array_get_decimal(a, i), a->type->scale, &b));
        char *mine = strdup(floe_buf_cstr(&b)), *want = strdup(v->kind == OJ_NUM ? v->s : "?");
        trim_decimal(mine);
        trim_decimal(want);
        ok = !strcmp(mine, want);
        if (!ok) fail_at(c, "decimal", v->s, floe_buf_cstr(&b));
        free(mine);
        free(want);
        break;
    }
    case FLOE_TYPE_DATE32:
        assert_ok(floe_format_date32(floe_array_get_int32(a, i), &b));
        ok = v->kind == OJ_STR && !strcmp(v->s, floe_buf_cstr(&b));
        if (!ok) fail_at(c, "date", v->s, floe_buf_cstr(&b));
        break;
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: {
        assert_ok(floe_format_timestamp(floe_array_get_int64(a, i), 1000000000,
                                        a->type->id == FLOE_TYPE_TIMESTAMP_NS_TZ, &b));
        char mine[96];
        snprintf(mine, sizeof mine, "%s", floe_buf_cstr(&b));
        trim_timestamp(mine);
        ok = v->kind == OJ_STR && !strcmp(v->s, mine);
        if (!ok) fail_at(c, "timestamp", v->s, mine);
        break;
    }
    case FLOE_TYPE_STRING: {
        floe_strview s = floe_array_get_str(a, i);
        ok = v->kind == OJ_STR && v->slen == (size_t)s.len && !memcmp(v->s, s.data, (size_t)s.len);
        if (!ok) {
            char tmp[100];
            snprintf(tmp, sizeof tmp, "%.*s", s.len > 90 ? 90 : s.len, s.data);
            fail_at(c, "string", v->s, tmp);
        }
        break;
    }
    case FLOE_TYPE_BINARY: {
        floe_strview s = floe_array_get_str(a, i);
        ok = v->kind == OJ_ARR && v->n == (size_t)s.len;
        for (size_t k = 0; ok && k < v->n; k++) ok = atoi(v->items[k].s) == (uint8_t)s.data[k];
        if (!ok) fail_at(c, "binary", "bytes", "other bytes");
        break;
    }
    case FLOE_TYPE_STRUCT: ok = cmp_struct(c, a, i, v); break;
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP: {
        int64_t s, e;
        floe_array_get_range(a, i, &s, &e);
        if (v->kind != OJ_ARR || v->n != (size_t)(e - s)) {
            snprintf(got, sizeof got, "%lld items", (long long)(e - s));
            char want[32];
            snprintf(want, sizeof want, "%zu items", v->kind == OJ_ARR ? v->n : 0);
            ok = fail_at(c, "list/map length", want, got);
            break;
        }
        const floe_array *child = a->children[0];
        for (int64_t k = s; ok && k < e; k++) {
            const oj *item = &v->items[k - s];
            if (a->type->id == FLOE_TYPE_MAP) {
                const oj *kv = oj_get(item, "key"), *vv = oj_get(item, "value");
                ok = kv && vv && cmp_value(c, child->children[0], child->offset + k, kv) &&
                     cmp_value(c, child->children[1], child->offset + k, vv);
                if (!kv || !vv) fail_at(c, "map entry", "key/value", "?");
            } else {
                ok = cmp_value(c, child, k, item);
            }
        }
        break;
    }
    default:
        ok = fail_at(c, "type", "a known type", floe_type_id_name(a->type->id));
    }
    floe_buf_free(&b);
    return ok;
}

static char *read_gz(const char *path, size_t *len) {
    floe_input *in;
    assert_ok(floe_input_open_local(path, &in));
    uint8_t *raw;
    size_t n;
    assert_ok(floe_input_read_all(in, &raw, &n));
    floe_input_close(in);
    floe_buf out = FLOE_BUF_INIT;
    if (n) assert_ok(floe_decompress_grow(FLOE_CODEC_GZIP, raw, n, &out));
    floe_free(raw);
    assert_ok(floe_buf_append_byte(&out, 0));
    *len = out.len - 1;
    return (char *)floe_buf_detach(&out, NULL);
}

static void check_file(const char *dir, const char *name, int64_t batch_size) {
    char orc[4096], exp[4096];
    snprintf(orc, sizeof orc, "%s/" EX "%s.orc", dir, name);
    snprintf(exp, sizeof exp, "%s/" EX "expected/%s.jsn.gz", dir, name);
    size_t len;
    char *text = read_gz(exp, &len);
    floe_orc_read_options o = {0};
    o.timestamp_unit = FLOE_ORC_TS_NS;
    o.batch_size = batch_size;
    floe_orc_reader *r;
    assert_ok(floe_orc_reader_open_path(orc, &o, &r));
    const floe_schema *sc = floe_orc_reader_schema(r);
    bool bare = sc->n_children == 1 && !strcmp(sc->children[0].name, "_col0") && text[0] == '"';
    char *line = text;
    cmp_ctx c = {name, 0, "", ""};
    int64_t next_pos = 0;
    for (;;) {
        floe_batch *b;
        assert_ok(floe_orc_reader_next(r, &b));
        if (!b) break;
        assert_ok(floe_batch_validate(b));
        const floe_orc_row_span *sp;
        int ns;
        floe_orc_reader_last_rows(r, &sp, &ns);
        assert_int_equal(ns, 1);
        assert_int_equal(sp[0].first_row, next_pos);
        assert_int_equal(sp[0].num_rows, b->num_rows);
        next_pos += b->num_rows;
        for (int64_t i = 0; i < b->num_rows; i++, c.row++) {
            char *nl = strchr(line, '\n');
            if (!nl && !*line) fail_msg("%s: more rows than expected (%lld)", name, (long long)c.row);
            if (nl) *nl = 0;
            oj v;
            const char *p = line;
            if (!oj_parse(&p, &v)) fail_msg("%s: bad expected JSON at row %lld", name, (long long)c.row);
            for (int32_t k = 0; k < b->num_columns; k++) {
                c.col = sc->children[k].name;
                const oj *fv = bare ? &v : oj_get(&v, c.col);
                static const oj null_v = {OJ_NULL, false, NULL, 0, NULL, NULL, 0};
                if (!cmp_value(&c, b->columns[k], i, fv ? fv : &null_v)) fail_msg("%s", c.why);
            }
            if (!bare && v.n != (size_t)b->num_columns)
                fail_msg("%s row %lld: %zu expected fields, %d columns", name, (long long)c.row, v.n,
                         (int)b->num_columns);
            oj_free(&v);
            line = nl ? nl + 1 : line + strlen(line);
        }
        floe_batch_release(b);
    }
    while (*line == '\n') line++;
    if (*line) fail_msg("%s: fewer rows than expected (%lld read)", name, (long long)c.row);
    floe_orc_reader_close(r);
    floe_free(text);
}

static void test_expected_rows(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    for (int i = 0; expected_files[i]; i++) check_file(dir, expected_files[i], 0);
}

/* Odd batch sizes cross every run, chunk and row-group boundary. */
static void test_expected_rows_small_batches(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    check_file(dir, "TestOrcFile.test1", 1);
    check_file(dir, "TestOrcFile.testUnionAndTimestamp", 7);
    check_file(dir, "orc-file-11-format", 333);
    check_file(dir, "TestOrcFile.testSeek", 1000);
    check_file(dir, "nulls-at-end-snappy", 4999);
}

FLOE_TEST_MAIN(cmocka_unit_test(test_expected_rows), cmocka_unit_test(test_expected_rows_small_batches))
