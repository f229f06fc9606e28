/*
 * ddl_types.c — the Iceberg type of a columnar type, for CREATE TABLE's
 * columns, CTAS result columns and metadata: flat types one to one,
 * nested ones (list, map, struct) with an id for every field, element,
 * key and value.
 */
#include "sql/ddl.h"

/* The Iceberg type of a columnar type the SQL type names map to. */
floe_status floe_sql_ice_type_plain(const floe_type *t, floe_ice_type **out) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: return floe_ice_type_new(FLOE_ICE_BOOLEAN, out);
    case FLOE_TYPE_INT32: return floe_ice_type_new(FLOE_ICE_INT, out);
    case FLOE_TYPE_INT64: return floe_ice_type_new(FLOE_ICE_LONG, out);
    case FLOE_TYPE_FLOAT32: return floe_ice_type_new(FLOE_ICE_FLOAT, out);
    case FLOE_TYPE_FLOAT64: return floe_ice_type_new(FLOE_ICE_DOUBLE, out);
    case FLOE_TYPE_DECIMAL128: return floe_ice_type_decimal(t->precision, t->scale, out);
    case FLOE_TYPE_DATE32: return floe_ice_type_new(FLOE_ICE_DATE, out);
    case FLOE_TYPE_TIME64_US: return floe_ice_type_new(FLOE_ICE_TIME, out);
    case FLOE_TYPE_TIMESTAMP_US: return floe_ice_type_new(FLOE_ICE_TIMESTAMP, out);
    case FLOE_TYPE_TIMESTAMP_US_TZ: return floe_ice_type_new(FLOE_ICE_TIMESTAMPTZ, out);
    case FLOE_TYPE_TIMESTAMP_NS: return floe_ice_type_new(FLOE_ICE_TIMESTAMP_NS, out);
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return floe_ice_type_new(FLOE_ICE_TIMESTAMPTZ_NS, out);
    case FLOE_TYPE_STRING: return floe_ice_type_new(FLOE_ICE_STRING, out);
    case FLOE_TYPE_BINARY: return floe_ice_type_new(FLOE_ICE_BINARY, out);
    case FLOE_TYPE_FIXED_BINARY: return floe_ice_type_fixed(t->byte_width, out);
    case FLOE_TYPE_UUID: return floe_ice_type_new(FLOE_ICE_UUID, out);
    case FLOE_TYPE_INTERVAL:
        return floe_error(FLOE_ERR_UNSUPPORTED, "interval columns cannot be stored in Iceberg tables (Iceberg has no "
                          "interval type; cast to text or store the parts)");
    default: return floe_error(FLOE_ERR_UNSUPPORTED, "type %s cannot be a table column", floe_type_id_name(t->id));
    }
}

floe_status floe_sql_ice_type_of(const floe_type *t, floe_ice_type **out) {
    /* An untyped NULL column is text, as PostgreSQL makes it. */
    if (t->id == FLOE_TYPE_NULL) return floe_ice_type_new(FLOE_ICE_STRING, out);
    return floe_sql_ice_type_plain(t, out);
}

/* The Iceberg type of a columnar type, nested ones too: every struct
 * field, list element and map key/value gets the next id from *next_id
 * (floe_ice_tm_new renumbers them all once the schema is complete). */
floe_status floe_sql_ice_type_nested(const floe_type *t, int32_t *next_id, floe_ice_type **out) {
    *out = NULL;
    floe_status st = NULL;
    switch (t->id) {
    case FLOE_TYPE_LIST: {
        floe_ice_type *el = NULL;
        int32_t id = (*next_id)++;
        FLOE_TRY(floe_sql_ice_type_nested(t->children[0].type, next_id, &el));
        return floe_ice_type_list(id, !t->children[0].nullable, el, out);
    }
    case FLOE_TYPE_MAP: {
        const floe_type *entries = t->children[0].type;
        floe_ice_type *k = NULL, *v = NULL;
        int32_t kid = (*next_id)++, vid = (*next_id)++;
        FLOE_TRY(floe_sql_ice_type_nested(entries->children[0].type, next_id, &k));
        if ((st = floe_sql_ice_type_nested(entries->children[1].type, next_id, &v))) {
            floe_ice_type_free(k);
            return st;
        }
        return floe_ice_type_map(kid, k, vid, !entries->children[1].nullable, v, out);
    }
    case FLOE_TYPE_STRUCT: {
        FLOE_TRY(floe_ice_type_struct(out));
        int32_t first = *next_id;
        *next_id += t->n_children; /* the fields' own ids first, as Iceberg numbers them */
        for (int32_t i = 0; i < t->n_children && !st; i++) {
            floe_ice_type *ft = NULL;
            st = floe_sql_ice_type_nested(t->children[i].type, next_id, &ft);
            if (!st)
                st = floe_ice_struct_add_field(*out, first + i, t->children[i].name, !t->children[i].nullable, ft,
                                               NULL);
        }
        if (st) {
            floe_ice_type_free(*out);
            *out = NULL;
        }
        return st;
    }
    default: return floe_sql_ice_type_plain(t, out);
    }
}

