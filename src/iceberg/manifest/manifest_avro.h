/*
 * manifest_avro.h — internals shared by manifest.c, manifest_list.c,
 * manifest_scan.c and live_files.c: Avro value access by Iceberg field id,
 * the partition tuple converters between Avro and floe_ice_value, arena
 * copies, and the entry-by-entry manifest reader both manifest forms (the
 * full one and the planner's compact one) are decoded with.
 */
#ifndef FLOE_ICEBERG_MANIFEST_AVRO_H
#define FLOE_ICEBERG_MANIFEST_AVRO_H

#include "base/arena.h"
#include "base/buffer.h"
#include "floe/iceberg_manifest.h"
#include "formats/avro/avro.h"

/* Index of the record field with Iceberg id `id`, else the first of the
 * NULL-terminated `names`; -1 when absent.  `rec` may be an optional record. */
int floe_ice_avro_find(const floe_avro_schema *rec, int64_t id, const char *const *names);
/* The record schema inside an optional (["null", record]) or the record. */
const floe_avro_schema *floe_ice_avro_record(const floe_avro_schema *s);

/* Field `idx` of a decoded record, or NULL when idx < 0 or the value is null. */
static inline const floe_avro_value *floe_ice_avro_get(const floe_avro_value *rec, int idx) {
    if (!rec || rec->type != FLOE_AVRO_RECORD || idx < 0 || (uint32_t)idx >= rec->len) return NULL;
    const floe_avro_value *v = &rec->u.items[idx];
    return v->type == FLOE_AVRO_NULL ? NULL : v;
}
/* Integer value (int, long, boolean, enum), or `dflt` when v is NULL. */
static inline int64_t floe_ice_avro_long(const floe_avro_value *v, int64_t dflt) {
    if (!v) return dflt;
    switch (v->type) {
    case FLOE_AVRO_INT:
    case FLOE_AVRO_LONG:
    case FLOE_AVRO_BOOLEAN:
    case FLOE_AVRO_ENUM: return v->u.l;
    default: return dflt;
    }
}

/* Copy n bytes into the arena, NUL-terminated; NULL on exhaustion. */
char *floe_ice_arena_text(floe_arena *a, const uint8_t *p, size_t n);

/* Partition tuple conversion, one per partition field. */
typedef struct floe_ice_part_conv {
    int32_t field_id;
    const char *name;
    floe_ice_type *type;   /* owned */
} floe_ice_part_conv;

/* Derive the converters from the Avro partition record of a manifest;
 * fields without field-id take spec_ids[i] (may be NULL) else 1000 + i. */
floe_status floe_ice_part_convs_from_avro(const floe_avro_schema *rec, const int32_t *spec_ids, int32_t n_spec_ids,
                                          floe_ice_part_conv **out, int32_t *n_out) FLOE_WARN_UNUSED;
void floe_ice_part_convs_free(floe_ice_part_conv *c, int32_t n);
/* Avro value (or NULL for null) -> ice value; bytes copied into `a`. */
floe_status floe_ice_part_value_from_avro(const floe_ice_part_conv *c, const floe_avro_value *v, floe_arena *a,
                                          floe_ice_value *out) FLOE_WARN_UNUSED;
/* Ice value -> Avro value of the type written for `t`; bytes in `a`. */
floe_status floe_ice_part_value_to_avro(const floe_ice_type *t, const floe_ice_value *v, floe_arena *a,
                                        floe_avro_value *out) FLOE_WARN_UNUSED;
/* The Avro type JSON written for an Iceberg primitive (field id names
 * fixed types uniquely). */
floe_status floe_ice_avro_type_json(floe_buf *b, const floe_ice_type *t, int32_t field_id) FLOE_WARN_UNUSED;

/* data_file layout: indexes of its fields in one writer schema. */
enum {
    FLOE_DF_CONTENT, FLOE_DF_FILE_PATH, FLOE_DF_FILE_FORMAT, FLOE_DF_PARTITION, FLOE_DF_RECORD_COUNT,
    FLOE_DF_FILE_SIZE, FLOE_DF_COLUMN_SIZES, FLOE_DF_VALUE_COUNTS, FLOE_DF_NULL_COUNTS, FLOE_DF_NAN_COUNTS,
    FLOE_DF_LOWER, FLOE_DF_UPPER, FLOE_DF_KEY_METADATA, FLOE_DF_SPLIT_OFFSETS, FLOE_DF_EQUALITY_IDS,
    FLOE_DF_SORT_ORDER_ID, FLOE_DF_FIRST_ROW_ID, FLOE_DF_REFERENCED, FLOE_DF_CONTENT_OFFSET, FLOE_DF_CONTENT_SIZE,
    FLOE_DF_N
};

typedef struct floe_ice_df_layout {
    int idx[FLOE_DF_N];
    floe_ice_part_conv *part;
    int32_t n_part;
    int32_t *part_ids;     /* owned copy of the field ids */
} floe_ice_df_layout;

floe_status floe_ice_df_layout_init(floe_ice_df_layout *l, const floe_avro_schema *data_file,
                                    const int32_t *spec_ids, int32_t n_spec_ids) FLOE_WARN_UNUSED;
void floe_ice_df_layout_clear(floe_ice_df_layout *l);
/* Decode one data_file record value; strings/arrays copied into `a`. */
floe_status floe_ice_df_from_avro(const floe_ice_df_layout *l, const floe_avro_value *rec, floe_arena *a,
                                  floe_ice_data_file *out) FLOE_WARN_UNUSED;

/* One entry of a metrics map, an array of key/value records or an Avro map
 * with numeric string keys: its key (a column id) and value. */
floe_status floe_ice_avro_map_entry(const floe_avro_value *m, uint32_t i, const floe_avro_value **k,
                                    const floe_avro_value **v, int32_t *key) FLOE_WARN_UNUSED;

/* ---- reading a manifest entry by entry -------------------------------- */

typedef struct floe_ice_manifest_reader {
    floe_avro_reader *r;
    const char *path;                   /* for messages */
    const floe_ice_manifest_file *mf;   /* list record (inheritance), may be NULL */
    floe_ice_df_layout layout;          /* of the data_file record */
    int i_status, i_snapshot_id, i_seq, i_file_seq, i_data_file; /* entry fields */
    int format_version;
    floe_ice_manifest_content content;  /* the list's word, else the header's */
    int32_t spec_id;
    int32_t schema_id;                  /* -1 when not recorded */
    int64_t next_row_id;                /* v3 lineage: next first_row_id, or -1 */
    size_t n_read;                      /* entries returned so far */
} floe_ice_manifest_reader;

/* Open the manifest `in` (not owned) and read its header; errors name it. */
floe_status floe_ice_manifest_reader_open(floe_input *in, const floe_ice_manifest_file *mf,
                                          floe_ice_manifest_reader *mr) FLOE_WARN_UNUSED;
void floe_ice_manifest_reader_close(floe_ice_manifest_reader *mr);
/* Entries the list record announces (a sizing hint), 0 when unknown. */
size_t floe_ice_manifest_reader_expected(const floe_ice_manifest_reader *mr);
/* The next entry: status, snapshot id and sequence numbers (inherited as
 * the spec says) into *e (e->file untouched) and its data_file record
 * value, decoded into `scratch`.  *has = 0 at the end.  Errors name the
 * entry index (the caller adds the manifest). */
floe_status floe_ice_manifest_reader_next(floe_ice_manifest_reader *mr, floe_arena *scratch, floe_ice_manifest_entry *e,
                                          const floe_avro_value **data_file, int *has) FLOE_WARN_UNUSED;
/* v3 row lineage for an entry without a first_row_id: true and the id
 * when the manifest assigns one (live data files, in entry order). */
bool floe_ice_manifest_reader_row_id(floe_ice_manifest_reader *mr, floe_ice_content content,
                                     floe_ice_entry_status status, int64_t record_count, int64_t *first_row_id);

#endif
