/*
 * location_provider.c — where a new data file goes, as Iceberg Java's
 * LocationProviders lays files out.
 *
 * Default layout (DefaultLocationProvider):
 *     <data path>/<partition path>/<file name>
 *     <data path>/<file name>                       (unpartitioned spec)
 * where <data path> is write.data.path or <table location>/data and the
 * partition path is PartitionSpec.partitionToPath: "name=human/..." with
 * names and human strings URL-encoded (java.net.URLEncoder).  A spec whose
 * fields are all void counts as unpartitioned, as Java's isUnpartitioned.
 *
 * Object-storage layout (ObjectStoreLocationProvider, write.object-storage.
 * enabled=true; Iceberg 1.7+): entropy directories from the Murmur3 hash of
 * the part of the location after the data path, so files spread over many
 * key prefixes:
 *     key  = "<partition path>/<file name>"   (partitioned-paths=true, the default)
 *          = "<file name>"                    (unpartitioned, or partitioned-paths=false)
 *     hash = the low 20 bits of murmur3_32(key) in binary, as
 *            "bbbb/bbbb/bbbb/bbbbbbbb"
 *     <data path>/<hash>/<key>                    partitioned-paths=true
 *     <data path>/<hash>-<file name>              partitioned-paths=false
 *     <data path>/<hash>/<context>/<key>          data path outside the table
 * with <context> = "<parent dir name>/<table dir name>" of the table
 * location.  E.g. s3://b/t/data/0101/1110/0011/10110010/day=2024-01-02/f.parquet.
 */
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "iceberg/write/data_writer_internal.h"
#include "iceberg/spec/murmur3.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "data file location"); }

/* Give `v` the partition field's type `want` when only the label differs:
 * a day/identity-of-date value may arrive as a plain int (the batch kernel
 * and iceberg_transform('day', ..) produce int32 days), times and
 * timestamps as plain longs.  Anything else must match exactly. */
static bool coerce_partition_value(floe_ice_value *v, floe_ice_type_id want) {
    if (v->is_null) {
        v->type = want;
        return true;
    }
    if (v->type == want) return true;
    switch (want) {
    case FLOE_ICE_DATE:
        if (v->type != FLOE_ICE_INT) return false;
        break;
    case FLOE_ICE_TIME: case FLOE_ICE_TIMESTAMP: case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS: case FLOE_ICE_TIMESTAMPTZ_NS:
        if (v->type != FLOE_ICE_LONG) return false;
        break;
    default:
        return false;
    }
    v->type = want;
    return true;
}

floe_status floe_ice_partition_values_check(const floe_ice_partition_spec *spec, const floe_ice_schema *schema,
                                            floe_ice_value *values, int32_t n) {
    if (n != spec->n_fields)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition spec %d has %d fields but %d values were given",
                          spec->spec_id, spec->n_fields, n);
    if (n == 0) return NULL;
    floe_ice_type *pt = NULL;
    FLOE_TRY(floe_ice_partition_spec_partition_type(spec, schema, false, &pt));
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        floe_ice_type_id want = pt->fields[i].type->id;
        floe_ice_type_id got = values[i].type;
        if (!coerce_partition_value(&values[i], want))
            st = floe_error(FLOE_ERR_TYPE, "partition field '%s' is %s but the value given is %s",
                            spec->fields[i].name, floe_ice_type_id_name(want), floe_ice_type_id_name(got));
    }
    floe_ice_type_free(pt);
    return st;
}

floe_status floe_ice_write_partition_path(const floe_ice_partition_spec *spec, const floe_ice_schema *schema,
                                          const floe_ice_value *partition, int32_t n_partition, char **out) {
    *out = NULL;
    if (!spec || spec->n_fields == 0) {
        if (n_partition != 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unpartitioned spec but %d partition values", n_partition);
        *out = floe_strdup("");
        return *out ? NULL : oom();
    }
    if (n_partition != spec->n_fields)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition spec %d has %d fields but %d values were given",
                          spec->spec_id, spec->n_fields, n_partition);
    /* Shallow copies: coercion only relabels, bytes stay views. */
    floe_ice_value *vals = floe_malloc_array((size_t)n_partition, sizeof *vals);
    if (!vals) return oom();
    memcpy(vals, partition, (size_t)n_partition * sizeof *vals);
    for (int32_t i = 0; i < n_partition; i++) vals[i].owns_bytes = false;
    floe_status st = floe_ice_partition_values_check(spec, schema, vals, n_partition);
    if (!st) st = floe_ice_partition_path(spec, vals, n_partition, out);
    floe_free(vals);
    return st;
}

void floe_ice_object_store_hash(const char *key, char out[24]) {
    uint32_t h = (uint32_t)floe_murmur3_32(key, strlen(key), 0);
    /* Java: Integer.toBinaryString(hash | MIN_VALUE), last 20 characters:
     * bits 19..0, most significant first. */
    char bits[20];
    for (int i = 0; i < 20; i++) bits[i] = (char)('0' + ((h >> (19 - i)) & 1));
    int o = 0;
    for (int i = 0; i < 20; i++) {
        if (i == 4 || i == 8 || i == 12) out[o++] = '/';
        out[o++] = bits[i];
    }
    out[o] = 0;
}

floe_status floe_ice_data_file_location(const floe_ice_write_settings *s, const char *partition_path,
                                        const char *filename, char **out) {
    *out = NULL;
    bool with_partition = !s->unpartitioned && partition_path;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = NULL;
    if (!s->object_storage) {
        if (with_partition) st = floe_buf_printf(&b, "%s/%s/%s", s->data_path, partition_path, filename);
        else st = floe_buf_printf(&b, "%s/%s", s->data_path, filename);
    } else {
        floe_buf key = FLOE_BUF_INIT;
        if (with_partition && s->partitioned_paths) st = floe_buf_printf(&key, "%s/%s", partition_path, filename);
        else st = floe_buf_append_str(&key, filename);
        char hash[24];
        if (!st) {
            floe_ice_object_store_hash(floe_buf_cstr(&key), hash);
            if (s->object_context)
                st = floe_buf_printf(&b, "%s/%s/%s/%s", s->data_path, hash, s->object_context, floe_buf_cstr(&key));
            else if (s->partitioned_paths)
                st = floe_buf_printf(&b, "%s/%s/%s", s->data_path, hash, floe_buf_cstr(&key));
            else
                st = floe_buf_printf(&b, "%s/%s-%s", s->data_path, hash, floe_buf_cstr(&key));
        }
        floe_buf_free(&key);
    }
    if (st) {
        floe_buf_free(&b);
        return oom();
    }
    *out = (char *)floe_buf_detach(&b, NULL);
    return *out ? NULL : oom();
}
