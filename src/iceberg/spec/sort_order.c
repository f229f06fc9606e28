/*
 * sort_order.c — sort orders (see floe/iceberg_sort_order.h): building,
 * validation against a schema, and the JSON form.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building a sort order"); }

const char *floe_ice_sort_direction_name(floe_ice_sort_direction d) { return d == FLOE_ICE_DESC ? "desc" : "asc"; }
const char *floe_ice_null_order_name(floe_ice_null_order n) {
    return n == FLOE_ICE_NULLS_LAST ? "nulls-last" : "nulls-first";
}

floe_status floe_ice_sort_order_new(int32_t order_id, floe_ice_sort_order **out) {
    *out = floe_calloc(1, sizeof **out);
    if (!*out) return oom();
    (*out)->order_id = order_id;
    return NULL;
}

void floe_ice_sort_order_free(floe_ice_sort_order *o) {
    if (!o) return;
    for (int32_t i = 0; i < o->n_fields; i++) floe_free(o->fields[i].source_ids);
    floe_free(o->fields);
    floe_free(o);
}

/* Append a field taking ownership of `ids` (freed on failure too). */
static floe_status add_field(floe_ice_sort_order *o, int32_t *ids, int32_t n, floe_ice_transform t,
                             floe_ice_sort_direction d, floe_ice_null_order nulls) {
    if (!ids || n < 1) {
        floe_free(ids);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "sort field has no source column");
    }
    floe_ice_sort_field *fs = floe_realloc(o->fields, ((size_t)o->n_fields + 1) * sizeof *fs);
    if (!fs) {
        floe_free(ids);
        return oom();
    }
    o->fields = fs;
    fs[o->n_fields++] = (floe_ice_sort_field){t, ids[0], n, ids, d, nulls};
    return NULL;
}

floe_status floe_ice_sort_order_add(floe_ice_sort_order *o, int32_t source_id, floe_ice_transform t,
                                    floe_ice_sort_direction d, floe_ice_null_order nulls) {
    int32_t *ids = floe_malloc(sizeof *ids);
    if (!ids) return oom();
    ids[0] = source_id;
    return add_field(o, ids, 1, t, d, nulls);
}

floe_status floe_ice_sort_order_copy(const floe_ice_sort_order *o, floe_ice_sort_order **out) {
    FLOE_TRY(floe_ice_sort_order_new(o->order_id, out));
    for (int32_t i = 0; i < o->n_fields; i++) {
        const floe_ice_sort_field *f = &o->fields[i];
        int32_t *ids = floe_malloc_array((size_t)f->n_source_ids, sizeof *ids);
        floe_status st = ids ? NULL : oom();
        if (!st) {
            memcpy(ids, f->source_ids, (size_t)f->n_source_ids * sizeof *ids);
            st = add_field(*out, ids, f->n_source_ids, f->transform, f->direction, f->null_order);
        }
        if (st) {
            floe_ice_sort_order_free(*out);
            *out = NULL;
            return st;
        }
    }
    return NULL;
}

bool floe_ice_sort_order_same_fields(const floe_ice_sort_order *a, const floe_ice_sort_order *b) {
    if (a->n_fields != b->n_fields) return false;
    for (int32_t i = 0; i < a->n_fields; i++) {
        const floe_ice_sort_field *x = &a->fields[i], *y = &b->fields[i];
        if (x->direction != y->direction || x->null_order != y->null_order || x->n_source_ids != y->n_source_ids ||
            !floe_ice_transform_equals(&x->transform, &y->transform))
            return false;
        for (int32_t k = 0; k < x->n_source_ids; k++)
            if (x->source_ids[k] != y->source_ids[k]) return false;
    }
    return true;
}

bool floe_ice_sort_order_satisfies(const floe_ice_sort_order *a, const floe_ice_sort_order *b,
                                   const floe_ice_schema *schema) {
    if (b->n_fields == 0) return true;
    if (a->n_fields < b->n_fields) return false;
    for (int32_t i = 0; i < b->n_fields; i++) {
        const floe_ice_sort_field *x = &a->fields[i], *y = &b->fields[i];
        if (x->n_source_ids != 1 || y->n_source_ids != 1 || x->source_id != y->source_id ||
            x->direction != y->direction || x->null_order != y->null_order)
            return false;
        const floe_ice_field *src = schema ? floe_ice_schema_find_field(schema, x->source_id) : NULL;
        floe_ice_type_id tid = src ? src->type->id : FLOE_ICE_UNKNOWN;
        if (!floe_ice_transform_satisfies_order_of(&x->transform, &y->transform, tid)) return false;
    }
    return true;
}

floe_status floe_ice_sort_order_validate(const floe_ice_sort_order *o, const floe_ice_schema *schema) {
    if (o->order_id == 0 && o->n_fields > 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "sort order 0 is reserved for the unsorted order but has %d fields",
                          o->n_fields);
    if (o->order_id != 0 && o->n_fields == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "sort order %d has no fields (only order 0 may be unsorted)",
                          o->order_id);
    char tb[80];
    for (int32_t i = 0; i < o->n_fields; i++) {
        const floe_ice_sort_field *f = &o->fields[i];
        floe_ice_transform_format(&f->transform, tb, sizeof tb);
        for (int32_t k = 0; k < f->n_source_ids; k++) {
            const floe_ice_field *src = floe_ice_schema_find_field(schema, f->source_ids[k]);
            if (!src)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "sort order %d, field #%d: source column %d does not exist",
                                  o->order_id, i, f->source_ids[k]);
            if (!floe_ice_type_is_primitive(src->type))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "sort order %d, field #%d: source column '%s' is not primitive",
                                  o->order_id, i, floe_ice_schema_field_name(schema, src->id));
            if (f->transform.kind != FLOE_ICE_TRANSFORM_UNKNOWN && f->n_source_ids == 1 &&
                !floe_ice_transform_can_apply(&f->transform, src->type))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "sort order %d, field #%d: transform '%s' cannot apply to column '%s' of type '%s'",
                                  o->order_id, i, tb, floe_ice_schema_field_name(schema, src->id),
                                  floe_ice_type_id_name(src->type->id));
        }
    }
    return NULL;
}

/* ---- JSON --------------------------------------------------------------- */

static floe_status field_from_json(json_t *jf, floe_ice_sort_order *o, int32_t idx) {
    char ctx[64];
    snprintf(ctx, sizeof ctx, "sort order %d, field #%d", o->order_id, idx);
    if (!json_is_object(jf)) return floe_error(FLOE_ERR_CORRUPT, "%s: not an object", ctx);
    const char *tr = json_string_value(json_object_get(jf, "transform"));
    const char *dir = json_string_value(json_object_get(jf, "direction"));
    const char *nulls = json_string_value(json_object_get(jf, "null-order"));
    if (!tr) return floe_error(FLOE_ERR_CORRUPT, "%s: missing 'transform'", ctx);
    if (!dir) return floe_error(FLOE_ERR_CORRUPT, "%s: missing 'direction'", ctx);
    if (!nulls) return floe_error(FLOE_ERR_CORRUPT, "%s: missing 'null-order'", ctx);
    floe_ice_sort_direction d;
    floe_ice_null_order n;
    if (strcasecmp(dir, "asc") == 0) d = FLOE_ICE_ASC;
    else if (strcasecmp(dir, "desc") == 0) d = FLOE_ICE_DESC;
    else return floe_error(FLOE_ERR_CORRUPT, "%s: invalid direction '%s'", ctx, dir);
    if (strcasecmp(nulls, "nulls-first") == 0) n = FLOE_ICE_NULLS_FIRST;
    else if (strcasecmp(nulls, "nulls-last") == 0) n = FLOE_ICE_NULLS_LAST;
    else return floe_error(FLOE_ERR_CORRUPT, "%s: invalid null-order '%s'", ctx, nulls);
    floe_ice_transform t;
    floe_status st = floe_ice_transform_parse(tr, &t);
    if (st) {
        floe_status c = floe_error(FLOE_ERR_CORRUPT, "%s: %s", ctx, floe_status_message(st));
        floe_status_free(st);
        return c;
    }
    int32_t *ids = NULL, cnt = 0;
    FLOE_TRY(floe_ice_json_source_ids(jf, ctx, &ids, &cnt));
    return add_field(o, ids, cnt, t, d, n);
}

floe_status floe_ice_sort_order_from_json(json_t *j, floe_ice_sort_order **out) {
    *out = NULL;
    if (!json_is_object(j)) return floe_error(FLOE_ERR_CORRUPT, "sort order: not a JSON object");
    int32_t id = 0;
    FLOE_TRY(floe_ice_json_int32(j, "order-id", true, "sort order", &id));
    json_t *fields = json_object_get(j, "fields");
    if (!json_is_array(fields))
        return floe_error(FLOE_ERR_CORRUPT, "sort order %d: %s", id,
                          fields ? "'fields' must be an array" : "missing 'fields'");
    floe_ice_sort_order *o;
    FLOE_TRY(floe_ice_sort_order_new(id, &o));
    for (size_t i = 0; i < json_array_size(fields); i++) {
        floe_status st = field_from_json(json_array_get(fields, i), o, (int32_t)i);
        if (st) {
            floe_ice_sort_order_free(o);
            return st;
        }
    }
    *out = o;
    return NULL;
}

floe_status floe_ice_sort_order_to_json(const floe_ice_sort_order *o, json_t **out) {
    *out = NULL;
    json_t *obj = json_object();
    json_t *arr = json_array();
    if (!obj || !arr || json_object_set_new(obj, "order-id", json_integer(o->order_id))) {
        json_decref(obj);
        json_decref(arr);
        return oom();
    }
    if (json_object_set_new(obj, "fields", arr)) {
        json_decref(obj);
        return oom();
    }
    char tb[80];
    for (int32_t i = 0; i < o->n_fields; i++) {
        const floe_ice_sort_field *f = &o->fields[i];
        json_t *jf = json_object();
        floe_status st = (!jf || json_array_append_new(arr, jf)) ? oom() : NULL;
        if (!st && json_object_set_new(jf, "transform",
                                       json_string(floe_ice_transform_format(&f->transform, tb, sizeof tb))))
            st = oom();
        if (!st) st = floe_ice_json_set_source_ids(jf, f->source_ids, f->n_source_ids);
        if (!st && (json_object_set_new(jf, "direction", json_string(floe_ice_sort_direction_name(f->direction))) ||
                    json_object_set_new(jf, "null-order", json_string(floe_ice_null_order_name(f->null_order)))))
            st = oom();
        if (st) {
            json_decref(obj);
            return st;
        }
    }
    *out = obj;
    return NULL;
}

floe_status floe_ice_sort_order_from_json_text(const char *text, floe_ice_sort_order **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_json_parse_text(text, "sort order", &j));
    floe_status st = floe_ice_sort_order_from_json(j, out);
    json_decref(j);
    return st;
}

floe_status floe_ice_sort_order_to_json_text(const floe_ice_sort_order *o, char **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_sort_order_to_json(o, &j));
    floe_status st = floe_ice_json_dump(j, out);
    json_decref(j);
    return st;
}
