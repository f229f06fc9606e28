/*
 * metadata_columns.c — the reserved metadata columns (see
 * iceberg_metadata_columns.h), as static fields that look like any other
 * schema field to the code that reads columns by field id.
 */
#include <string.h>

#include "floe/iceberg_metadata_columns.h"

static floe_ice_type t_string = {.id = FLOE_ICE_STRING};
static floe_ice_type t_long = {.id = FLOE_ICE_LONG};
static floe_ice_type t_int = {.id = FLOE_ICE_INT};

static floe_ice_field fields[] = {
    {.id = FLOE_ICE_MD_FILE_ID, .name = "_file", .required = true, .type = &t_string},
    {.id = FLOE_ICE_MD_POS_ID, .name = "_pos", .required = true, .type = &t_long},
    {.id = FLOE_ICE_MD_SPEC_ID_ID, .name = "_spec_id", .required = true, .type = &t_int},
    {.id = FLOE_ICE_MD_ROW_ID_ID, .name = "_row_id", .required = false, .type = &t_long},
    {.id = FLOE_ICE_MD_LAST_UPDATED_SEQ_ID, .name = "_last_updated_sequence_number", .required = false,
     .type = &t_long},
};
#define N_FIELDS ((int32_t)(sizeof fields / sizeof *fields))

const floe_ice_field *floe_ice_metadata_field(int32_t id) {
    for (int32_t i = 0; i < N_FIELDS; i++)
        if (fields[i].id == id) return &fields[i];
    return NULL;
}

const floe_ice_field *floe_ice_metadata_field_by_name(const char *name) {
    for (int32_t i = 0; i < N_FIELDS; i++)
        if (strcmp(fields[i].name, name) == 0) return &fields[i];
    return NULL;
}

int32_t floe_ice_metadata_field_count(void) { return N_FIELDS; }

const floe_ice_field *floe_ice_metadata_field_at(int32_t i) {
    return i >= 0 && i < N_FIELDS ? &fields[i] : NULL;
}
