/*
 * partition_spec.c — partition specs (see floe/iceberg_partition_spec.h):
 * building, validation against a schema, the partition tuple type, partition
 * paths, and the JSON forms (object and bare field list).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building a partition spec"); }

floe_status floe_ice_partition_spec_new(int32_t spec_id, floe_ice_partition_spec **out) {
    *out = floe_calloc(1, sizeof **out);
    if (!*out) return oom();
    (*out)->spec_id = spec_id;
    return NULL;
}

static void field_clear(floe_ice_partition_field *f) {
    floe_free(f->source_ids);
    floe_free(f->name);
}

void floe_ice_partition_spec_free(floe_ice_partition_spec *spec) {
    if (!spec) return;
    for (int32_t i = 0; i < spec->n_fields; i++) field_clear(&spec->fields[i]);
    floe_free(spec->fields);
    floe_free(spec);
}

/* Append a field taking ownership of `ids` (freed on failure too). */
static floe_status add_field(floe_ice_partition_spec *spec, int32_t *ids, int32_t n_ids, int32_t field_id,
                             const char *name, floe_ice_transform tr) {
    if (!ids || n_ids < 1) {
        floe_free(ids);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition field '%s' has no source column", name ? name : "");
    }
    floe_ice_partition_field *fs = floe_realloc(spec->fields, ((size_t)spec->n_fields + 1) * sizeof *fs);
    char *nm = floe_strdup(name ? name : "");
    if (!fs || !nm) {
        if (fs) spec->fields = fs;
        floe_free(nm);
        floe_free(ids);
        return oom();
    }
    spec->fields = fs;
    fs[spec->n_fields++] = (floe_ice_partition_field){ids[0], n_ids, ids, field_id, nm, tr};
    return NULL;
}

floe_status floe_ice_partition_spec_add(floe_ice_partition_spec *spec, int32_t source_id, int32_t field_id,
                                        const char *name, floe_ice_transform transform) {
    int32_t *ids = floe_malloc(sizeof *ids);
    if (!ids) return oom();
    ids[0] = source_id;
    return add_field(spec, ids, 1, field_id, name, transform);
}

floe_status floe_ice_partition_spec_copy(const floe_ice_partition_spec *spec, floe_ice_partition_spec **out) {
    FLOE_TRY(floe_ice_partition_spec_new(spec->spec_id, out));
    for (int32_t i = 0; i < spec->n_fields; i++) {
        const floe_ice_partition_field *f = &spec->fields[i];
        int32_t *ids = floe_malloc_array((size_t)f->n_source_ids, sizeof *ids);
        floe_status st = ids ? NULL : oom();
        if (!st) {
            memcpy(ids, f->source_ids, (size_t)f->n_source_ids * sizeof *ids);
            st = add_field(*out, ids, f->n_source_ids, f->field_id, f->name, f->transform);
        }
        if (st) {
            floe_ice_partition_spec_free(*out);
            *out = NULL;
            return st;
        }
    }
    return NULL;
}

const floe_ice_partition_field *floe_ice_partition_spec_find_field(const floe_ice_partition_spec *spec,
                                                                   int32_t field_id) {
    for (int32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].field_id == field_id) return &spec->fields[i];
    return NULL;
}

floe_status floe_ice_partition_default_name(const floe_ice_transform *t, const char *source_name, char **out) {
    static const char *const suffix[] = {
        [FLOE_ICE_TRANSFORM_IDENTITY] = "",     [FLOE_ICE_TRANSFORM_BUCKET] = "_bucket",
        [FLOE_ICE_TRANSFORM_TRUNCATE] = "_trunc", [FLOE_ICE_TRANSFORM_YEAR] = "_year",
        [FLOE_ICE_TRANSFORM_MONTH] = "_month",  [FLOE_ICE_TRANSFORM_DAY] = "_day",
        [FLOE_ICE_TRANSFORM_HOUR] = "_hour",    [FLOE_ICE_TRANSFORM_VOID] = "_null",
    };
    *out = NULL;
    if (t->kind == FLOE_ICE_TRANSFORM_UNKNOWN)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no default partition name for transform '%s'", t->name);
    size_t a = strlen(source_name), b = strlen(suffix[t->kind]);
    char *s = floe_malloc(a + b + 1);
    if (!s) return oom();
    memcpy(s, source_name, a);
    memcpy(s + a, suffix[t->kind], b + 1);
    *out = s;
    return NULL;
}

bool floe_ice_partition_spec_is_unpartitioned(const floe_ice_partition_spec *spec) {
    for (int32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].transform.kind != FLOE_ICE_TRANSFORM_VOID) return false;
    return true;
}

int32_t floe_ice_partition_spec_last_field_id(const floe_ice_partition_spec *spec) {
    int32_t m = FLOE_ICE_PARTITION_DATA_ID_START - 1;
    for (int32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].field_id > m) m = spec->fields[i].field_id;
    return m;
}

bool floe_ice_partition_spec_equivalent(const floe_ice_partition_spec *a, const floe_ice_partition_spec *b) {
    if (a->n_fields != b->n_fields) return false;
    for (int32_t i = 0; i < a->n_fields; i++) {
        const floe_ice_partition_field *x = &a->fields[i], *y = &b->fields[i];
        if (x->n_source_ids != y->n_source_ids || strcmp(x->name, y->name) != 0 ||
            !floe_ice_transform_equals(&x->transform, &y->transform))
            return false;
        for (int32_t k = 0; k < x->n_source_ids; k++)
            if (x->source_ids[k] != y->source_ids[k]) return false;
    }
    return true;
}

/* ---- validation --------------------------------------------------------- */

/* "partition spec <id>, field '<name>': <message>" */
static floe_status field_err(const floe_ice_partition_spec *spec, const floe_ice_partition_field *f, const char *fmt,
                             ...) FLOE_PRINTF(3, 4);
static floe_status field_err(const floe_ice_partition_spec *spec, const floe_ice_partition_field *f, const char *fmt,
                             ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition spec %d, field '%s': %s", spec->spec_id, f->name, msg);
}

floe_status floe_ice_partition_spec_validate(const floe_ice_partition_spec *spec, const floe_ice_schema *schema) {
    char tb[80];
    for (int32_t i = 0; i < spec->n_fields; i++) {
        const floe_ice_partition_field *f = &spec->fields[i];
        if (!f->name[0])
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition spec %d: field %d has an empty name", spec->spec_id,
                              f->field_id);
        for (int32_t k = 0; k < i; k++) {
            if (strcmp(spec->fields[k].name, f->name) == 0)
                return field_err(spec, f, "name is used twice");
            if (spec->fields[k].field_id == f->field_id)
                return field_err(spec, f, "field id %d is used twice", f->field_id);
        }
        floe_ice_transform_format(&f->transform, tb, sizeof tb);
        for (int32_t k = 0; k < f->n_source_ids; k++) {
            int32_t sid = f->source_ids[k];
            const floe_ice_field *src = floe_ice_schema_find_field(schema, sid);
            if (!src) return field_err(spec, f, "source column %d does not exist in the schema", sid);
            if (!floe_ice_type_is_primitive(src->type))
                return field_err(spec, f, "source column %d ('%s') is not a primitive type", sid,
                                 floe_ice_schema_field_name(schema, sid));
            if (floe_ice_schema_in_list_or_map(schema, sid))
                return field_err(spec, f, "source column %d ('%s') is inside a list or map", sid,
                                 floe_ice_schema_field_name(schema, sid));
            if (f->transform.kind != FLOE_ICE_TRANSFORM_UNKNOWN && f->n_source_ids == 1 &&
                !floe_ice_transform_can_apply(&f->transform, src->type))
                return field_err(spec, f, "transform '%s' cannot apply to type '%s'", tb,
                                 floe_ice_type_id_name(src->type->id));
        }
        /* A partition name may not shadow a column, except an identity
         * partition of that very column (Java's builder rule). */
        if (f->transform.kind == FLOE_ICE_TRANSFORM_VOID) continue;
        const floe_ice_field *same = floe_ice_schema_find_by_name(schema, f->name, true);
        if (same && !(f->transform.kind == FLOE_ICE_TRANSFORM_IDENTITY && same->id == f->source_id))
            return field_err(spec, f, "name conflicts with a schema column");
    }
    return NULL;
}

/* ---- partition type and paths ------------------------------------------- */

floe_status floe_ice_partition_spec_partition_type(const floe_ice_partition_spec *spec, const floe_ice_schema *schema,
                                                   bool lenient, floe_ice_type **out) {
    *out = NULL;
    floe_ice_type *st_type = NULL;
    FLOE_TRY(floe_ice_type_struct(&st_type));
    for (int32_t i = 0; i < spec->n_fields; i++) {
        const floe_ice_partition_field *f = &spec->fields[i];
        const floe_ice_field *src = floe_ice_schema_find_field(schema, f->source_id);
        floe_ice_type *rt = NULL;
        floe_status st = NULL;
        if (src && f->n_source_ids == 1 && floe_ice_transform_can_apply(&f->transform, src->type)) {
            st = floe_ice_transform_result_type(&f->transform, src->type, &rt);
        } else if (lenient) {
            st = floe_ice_type_new(FLOE_ICE_UNKNOWN, &rt);
        } else {
            char tb[80];
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                            "partition spec %d, field '%s': cannot type transform '%s' of source column %d",
                            spec->spec_id, f->name, floe_ice_transform_format(&f->transform, tb, sizeof tb),
                            f->source_id);
        }
        if (!st) st = floe_ice_struct_add_field(st_type, f->field_id, f->name, false, rt, NULL);
        if (st) {
            floe_ice_type_free(st_type);
            return st;
        }
    }
    *out = st_type;
    return NULL;
}

static floe_status url_encode_into(floe_buf *b, const char *s, size_t len) {
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
            c == '*' || c == '_') {
            FLOE_TRY(floe_buf_append_byte(b, c));
        } else if (c == ' ') {
            FLOE_TRY(floe_buf_append_byte(b, '+'));
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            FLOE_TRY(floe_buf_append(b, e, 3));
        }
    }
    return NULL;
}

static floe_status finish(floe_buf *b, floe_status st, char **out) {
    if (!st && !b->data) st = floe_buf_reserve(b, 0);
    if (st) {
        floe_buf_free(b);
        *out = NULL;
        return st;
    }
    *out = (char *)floe_buf_detach(b, NULL);
    return NULL;
}

floe_status floe_ice_url_encode(const char *s, size_t len, char **out) {
    floe_buf b = FLOE_BUF_INIT;
    return finish(&b, url_encode_into(&b, s, len), out);
}

floe_status floe_ice_partition_path(const floe_ice_partition_spec *spec, const floe_ice_value *values,
                                    int32_t n_values, char **out) {
    *out = NULL;
    if (n_values != spec->n_fields)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition spec %d has %d fields but %d values were given",
                          spec->spec_id, spec->n_fields, n_values);
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < spec->n_fields; i++) {
        const floe_ice_partition_field *f = &spec->fields[i];
        char *human = NULL;
        if (i > 0) st = floe_buf_append_byte(&b, '/');
        if (!st) st = url_encode_into(&b, f->name, strlen(f->name));
        if (!st) st = floe_buf_append_byte(&b, '=');
        if (!st) st = floe_ice_transform_human_string(&f->transform, &values[i], &human);
        if (!st) st = url_encode_into(&b, human, strlen(human));
        floe_free(human);
        if (st) st = floe_status_wrap(st, "partition field '%s'", f->name);
    }
    return finish(&b, st, out);
}

/* ---- JSON --------------------------------------------------------------- */

floe_status floe_ice_json_source_ids(json_t *obj, const char *ctx, int32_t **ids, int32_t *n) {
    *ids = NULL;
    *n = 0;
    json_t *many = json_object_get(obj, "source-ids");
    json_t *one = json_object_get(obj, "source-id");
    size_t count = 1;
    if (many && !json_is_null(many)) {
        if (!json_is_array(many) || json_array_size(many) == 0)
            return floe_error(FLOE_ERR_CORRUPT, "%s: 'source-ids' must be a non-empty array", ctx);
        count = json_array_size(many);
    } else if (!one) {
        return floe_error(FLOE_ERR_CORRUPT, "%s: missing 'source-id'", ctx);
    }
    int32_t *arr = floe_malloc_array(count, sizeof *arr);
    if (!arr) return oom();
    for (size_t i = 0; i < count; i++) {
        json_t *x = (many && !json_is_null(many)) ? json_array_get(many, i) : one;
        if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > INT32_MAX) {
            floe_free(arr);
            return floe_error(FLOE_ERR_CORRUPT, "%s: source ids must be non-negative 32-bit integers", ctx);
        }
        arr[i] = (int32_t)json_integer_value(x);
    }
    *ids = arr;
    *n = (int32_t)count;
    return NULL;
}

floe_status floe_ice_json_set_source_ids(json_t *obj, const int32_t *ids, int32_t n) {
    if (n == 1) return json_object_set_new(obj, "source-id", json_integer(ids[0])) ? oom() : NULL;
    json_t *arr = json_array();
    if (!arr || json_object_set_new(obj, "source-ids", arr)) return oom();
    for (int32_t i = 0; i < n; i++)
        if (json_array_append_new(arr, json_integer(ids[i]))) return oom();
    return NULL;
}

static floe_status field_from_json(json_t *jf, floe_ice_partition_spec *spec, int32_t idx, int32_t v1_id) {
    char ctx[96];
    snprintf(ctx, sizeof ctx, "partition spec %d, field #%d", spec->spec_id, idx);
    if (!json_is_object(jf)) return floe_error(FLOE_ERR_CORRUPT, "%s: not an object", ctx);
    const char *name = json_string_value(json_object_get(jf, "name"));
    if (!name) return floe_error(FLOE_ERR_CORRUPT, "%s: missing 'name'", ctx);
    snprintf(ctx, sizeof ctx, "partition spec %d, field '%s'", spec->spec_id, name);
    const char *tr = json_string_value(json_object_get(jf, "transform"));
    if (!tr) return floe_error(FLOE_ERR_CORRUPT, "%s: missing 'transform'", ctx);
    floe_ice_transform t;
    floe_status st = floe_ice_transform_parse(tr, &t);
    if (st) {
        floe_status c = floe_error(FLOE_ERR_CORRUPT, "%s: %s", ctx, floe_status_message(st));
        floe_status_free(st);
        return c;
    }
    int32_t field_id = v1_id;
    FLOE_TRY(floe_ice_json_int32(jf, "field-id", false, ctx, &field_id));
    int32_t *ids = NULL, n = 0;
    FLOE_TRY(floe_ice_json_source_ids(jf, ctx, &ids, &n));
    return add_field(spec, ids, n, field_id, name, t);
}

floe_status floe_ice_partition_fields_from_json(json_t *fields, int32_t spec_id, int32_t first_v1_field_id,
                                                floe_ice_partition_spec **out) {
    *out = NULL;
    if (!json_is_array(fields))
        return floe_error(FLOE_ERR_CORRUPT, "partition spec %d: 'fields' must be an array", spec_id);
    floe_ice_partition_spec *spec;
    FLOE_TRY(floe_ice_partition_spec_new(spec_id, &spec));
    for (size_t i = 0; i < json_array_size(fields); i++) {
        floe_status st = field_from_json(json_array_get(fields, i), spec, (int32_t)i, first_v1_field_id + (int32_t)i);
        if (st) {
            floe_ice_partition_spec_free(spec);
            return st;
        }
    }
    *out = spec;
    return NULL;
}

floe_status floe_ice_partition_spec_from_json(json_t *j, floe_ice_partition_spec **out) {
    *out = NULL;
    if (!json_is_object(j)) return floe_error(FLOE_ERR_CORRUPT, "partition spec: not a JSON object");
    int32_t id = 0;
    FLOE_TRY(floe_ice_json_int32(j, "spec-id", true, "partition spec", &id));
    json_t *fields = json_object_get(j, "fields");
    if (!fields) return floe_error(FLOE_ERR_CORRUPT, "partition spec %d: missing 'fields'", id);
    return floe_ice_partition_fields_from_json(fields, id, FLOE_ICE_PARTITION_DATA_ID_START, out);
}

floe_status floe_ice_partition_fields_to_json(const floe_ice_partition_spec *spec, json_t **out) {
    *out = NULL;
    json_t *arr = json_array();
    if (!arr) return oom();
    char tb[80];
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < spec->n_fields; i++) {
        const floe_ice_partition_field *f = &spec->fields[i];
        json_t *o = json_object();
        if (!o || json_array_append_new(arr, o)) st = oom();
        if (!st && (json_object_set_new(o, "name", json_string(f->name)) ||
                    json_object_set_new(o, "transform",
                                        json_string(floe_ice_transform_format(&f->transform, tb, sizeof tb)))))
            st = oom();
        if (!st) st = floe_ice_json_set_source_ids(o, f->source_ids, f->n_source_ids);
        if (!st && json_object_set_new(o, "field-id", json_integer(f->field_id))) st = oom();
    }
    if (st) {
        json_decref(arr);
        return st;
    }
    *out = arr;
    return NULL;
}

floe_status floe_ice_partition_spec_to_json(const floe_ice_partition_spec *spec, json_t **out) {
    *out = NULL;
    json_t *fields = NULL;
    FLOE_TRY(floe_ice_partition_fields_to_json(spec, &fields));
    json_t *o = json_object();
    if (!o) {
        json_decref(fields);
        return oom();
    }
    if (json_object_set_new(o, "spec-id", json_integer(spec->spec_id)) ||
        json_object_set_new(o, "fields", fields)) {
        json_decref(o);
        return oom();
    }
    *out = o;
    return NULL;
}

floe_status floe_ice_partition_spec_from_json_text(const char *text, floe_ice_partition_spec **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_json_parse_text(text, "partition spec", &j));
    floe_status st = floe_ice_partition_spec_from_json(j, out);
    json_decref(j);
    return st;
}

floe_status floe_ice_partition_spec_to_json_text(const floe_ice_partition_spec *spec, char **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_partition_spec_to_json(spec, &j));
    floe_status st = floe_ice_json_dump(j, out);
    json_decref(j);
    return st;
}
