/*
 * table_append.c — the metadata half of an append commit: a manifest of
 * the new data files, a manifest list that adds it to the current
 * snapshot's manifests, and new table metadata with the snapshot made
 * current.  See floe_ice_tm_append_snapshot in iceberg_table_update.h.
 *
 * Data files arrive as Avro data_file records (bytes) because writers may
 * run in other processes; they are decoded here with a codec built from
 * the table's default spec, so a record written for another spec fails to
 * decode instead of landing under the wrong partition tuple.
 *
 * The snapshot is installed by editing the metadata's JSON tree (the
 * machinery of table_update_internal.h), whose parser re-validates the
 * result.  Nothing here touches the catalog: the caller commits and, when
 * the commit loses, discards the two files written here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <jansson.h>

#include "base/arena.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/table_update_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building an append"); }

void floe_ice_append_files_clear(floe_ice_append_files *f) {
    if (!f) return;
    floe_free(f->manifest);
    floe_free(f->manifest_list);
    f->manifest = f->manifest_list = NULL;
}

void floe_ice_append_files_discard(const floe_ice_table *t, floe_ice_append_files *f) {
    if (!f) return;
    floe_fileio *io = t ? t->io : NULL;
    /* Best effort: a file that cannot be deleted is an orphan, which
     * Iceberg's remove-orphan-files maintenance cleans; it is never
     * referenced by committed metadata. */
    if (f->manifest) floe_status_free(floe_fileio_delete(io, f->manifest));
    if (f->manifest_list) floe_status_free(floe_fileio_delete(io, f->manifest_list));
    floe_ice_append_files_clear(f);
}

/* A positive random snapshot id not used by the table (Java uses a
 * positive long from a random UUID). */
static floe_status new_snapshot_id(const floe_ice_table_metadata *md, int64_t *out) {
    for (;;) {
        uint64_t r = 0;
        size_t got = 0;
        while (got < sizeof r) {
            ssize_t k = getrandom((uint8_t *)&r + got, sizeof r - got, 0);
            if (k < 0) {
                if (errno == EINTR) continue;
                return floe_error(FLOE_ERR_IO, "cannot get random bytes for a snapshot id: %s", strerror(errno));
            }
            got += (size_t)k;
        }
        int64_t id = (int64_t)(r & (uint64_t)INT64_MAX);
        if (id != 0 && !floe_ice_tm_snapshot(md, id)) {
            *out = id;
            return NULL;
        }
    }
}

/* ---- partition field summaries ------------------------------------------- */

/* One field's running summary: null/NaN flags and min/max over the
 * non-null, non-NaN values (views into the decoded files). */
typedef struct psum {
    bool contains_null, contains_nan, has_bounds;
    floe_ice_value lo, hi;
} psum;

static bool is_nan(const floe_ice_value *v) {
    return (v->type == FLOE_ICE_FLOAT && isnan(v->v.f32)) || (v->type == FLOE_ICE_DOUBLE && isnan(v->v.f64));
}

static void psum_add(psum *s, const floe_ice_value *v) {
    if (v->is_null) {
        s->contains_null = true;
    } else if (is_nan(v)) {
        s->contains_nan = true;
    } else if (!s->has_bounds) {
        s->lo = s->hi = *v;
        s->has_bounds = true;
    } else {
        if (floe_ice_value_compare(v, &s->lo) < 0) s->lo = *v;
        if (floe_ice_value_compare(v, &s->hi) > 0) s->hi = *v;
    }
}

/* Serialize the bounds into `arena` and fill the manifest-list form. */
static floe_status psum_finish(const psum *s, floe_arena *arena, floe_ice_field_summary *out) {
    memset(out, 0, sizeof *out);
    out->contains_null = s->contains_null;
    out->contains_nan = s->contains_nan ? 1 : 0;
    if (!s->has_bounds) return NULL;
    const floe_ice_value *v[2] = {&s->lo, &s->hi};
    for (int k = 0; k < 2; k++) {
        uint8_t *b = NULL;
        size_t len = 0;
        FLOE_TRY(floe_ice_value_to_bytes(v[k], &b, &len));
        uint8_t *copy = floe_arena_alloc(arena, len ? len : 1);
        if (!copy) {
            floe_free(b);
            return oom();
        }
        if (len) memcpy(copy, b, len);
        floe_free(b);
        if (k == 0) out->lower_bound = copy, out->lower_len = (uint32_t)len;
        else out->upper_bound = copy, out->upper_len = (uint32_t)len;
    }
    return NULL;
}

/* ---- the work of one append ---------------------------------------------- */

typedef struct append {
    const floe_ice_table *t;
    const floe_ice_table_metadata *md;
    const floe_ice_schema *schema;
    const floe_ice_partition_spec *spec;
    const floe_ice_snapshot *parent;
    floe_ice_data_file_codec *codec;
    floe_arena arena;
    floe_ice_data_file *files;
    int32_t n;
    int64_t snapshot_id, seq, timestamp_ms;
    int64_t added_records, added_size;
    int32_t changed_partitions;
    floe_ice_manifest_file rec;        /* the new manifest's list record */
} append;

static floe_status decode_files(append *a, const uint8_t *const *data, const size_t *lens) {
    a->files = floe_arena_calloc(&a->arena, (size_t)(a->n ? a->n : 1), sizeof *a->files);
    if (!a->files) return oom();
    for (int32_t i = 0; i < a->n; i++) {
        floe_ice_data_file *f = &a->files[i];
        floe_status st = floe_ice_data_file_decode(a->codec, data[i], lens[i], &a->arena, f);
        if (st) return floe_status_wrap(st, "append: data file record %d of %d", i + 1, a->n);
        if (f->content != FLOE_ICE_CONTENT_DATA)
            return floe_error(FLOE_ERR_UNSUPPORTED, "append: record %d (%s) is a %s file; only data files can be "
                              "appended", i + 1, f->file_path, floe_ice_content_name(f->content));
        if (f->record_count < 0 || f->file_size_in_bytes < 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "append: record %d (%s) has a negative record count or size",
                              i + 1, f->file_path);
        f->spec_id = a->spec->spec_id;
        a->added_records += f->record_count;
        a->added_size += f->file_size_in_bytes;
    }
    return NULL;
}

/* Distinct partition tuples among the files (Java's changed-partition-count;
 * an unpartitioned table has the one empty tuple).  n is small (files of
 * one statement), so pairwise comparison is fine. */
static int32_t count_partitions(const append *a) {
    int32_t count = 0;
    for (int32_t i = 0; i < a->n; i++) {
        bool seen = false;
        for (int32_t j = 0; j < i && !seen; j++) {
            bool same = true;
            for (int32_t k = 0; k < a->files[i].n_partition && same; k++)
                same = floe_ice_value_equals(&a->files[i].partition[k], &a->files[j].partition[k]);
            seen = same;
        }
        if (!seen) count++;
    }
    return count;
}

static floe_status location_for(const append *a, const char *fmt_suffix, char **out) {
    char uuid[37];
    FLOE_TRY(floe_ice_uuid4(uuid));
    const char *loc = a->md->location;
    size_t need = strlen(loc) + 128;
    char *p = floe_malloc(need);
    if (!p) return oom();
    if (strcmp(fmt_suffix, "manifest") == 0)
        snprintf(p, need, "%s/metadata/%s-m0.avro", loc, uuid);
    else
        snprintf(p, need, "%s/metadata/snap-%" PRId64 "-1-%s.avro", loc, a->snapshot_id, uuid);
    *out = p;
    return NULL;
}

static floe_status write_manifest(append *a, floe_ice_append_files *w) {
    FLOE_TRY(location_for(a, "manifest", &w->manifest));
    floe_output *out = NULL;
    FLOE_TRY(floe_fileio_create_output(a->t->io, w->manifest, 0, &out));
    floe_ice_manifest_writer_options o = {a->md->format_version, FLOE_ICE_MANIFEST_DATA, a->schema, a->spec,
                                          a->snapshot_id};
    floe_ice_manifest_writer *mw = NULL;
    floe_status st = floe_ice_manifest_writer_open(out, &o, &mw);
    for (int32_t i = 0; !st && i < a->n; i++) {
        /* v2: ids and sequence numbers null, inherited from the list record
         * (so a retried commit only rewrites the list, as Java's would). */
        floe_ice_manifest_entry e = {FLOE_ICE_STATUS_ADDED, -1, -1, -1, a->files[i]};
        st = floe_ice_manifest_writer_add(mw, &e);
    }
    if (mw) {
        if (st) floe_ice_manifest_writer_abort(mw);
        else st = floe_ice_manifest_writer_finish(mw, &a->rec);
    }
    if (!st) a->rec.manifest_length = (int64_t)out->bytes_written;
    floe_status cst = floe_output_close(out);
    if (!st) st = cst;
    else floe_status_free(cst);
    if (st) return floe_status_wrap(st, "writing manifest %s", w->manifest);

    a->rec.manifest_path = w->manifest;
    a->rec.partition_spec_id = a->spec->spec_id;
    a->rec.content = FLOE_ICE_MANIFEST_DATA;
    a->rec.sequence_number = a->seq;
    a->rec.min_sequence_number = a->seq;
    a->rec.added_snapshot_id = a->snapshot_id;
    a->rec.added_files_count = a->n;
    a->rec.added_rows_count = a->added_records;
    if (a->rec.existing_files_count < 0) a->rec.existing_files_count = 0;
    if (a->rec.deleted_files_count < 0) a->rec.deleted_files_count = 0;
    if (a->rec.existing_rows_count < 0) a->rec.existing_rows_count = 0;
    if (a->rec.deleted_rows_count < 0) a->rec.deleted_rows_count = 0;

    int32_t np = a->spec->n_fields;
    a->rec.n_partitions = np;
    a->rec.partitions = floe_arena_calloc(&a->arena, (size_t)(np ? np : 1), sizeof *a->rec.partitions);
    if (!a->rec.partitions) return oom();
    for (int32_t k = 0; k < np; k++) {
        psum s;
        memset(&s, 0, sizeof s);
        for (int32_t i = 0; i < a->n; i++)
            if (k < a->files[i].n_partition) psum_add(&s, &a->files[i].partition[k]);
        FLOE_TRY(psum_finish(&s, &a->arena, &a->rec.partitions[k]));
    }
    return NULL;
}

static floe_status write_list(append *a, floe_ice_append_files *w) {
    floe_ice_manifest_list *old = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *prev = NULL;
    size_t n_prev = 0;
    if (a->parent) FLOE_TRY(floe_ice_snapshot_manifests(a->t, a->parent, &old, &v1, &prev, &n_prev));
    floe_status st = NULL;
    floe_ice_manifest_file *all = floe_malloc((n_prev + 1) * sizeof *all);
    if (!all) st = oom();
    if (!st) {
        all[0] = a->rec;
        for (size_t i = 0; i < n_prev; i++) all[i + 1] = prev[i];
        st = location_for(a, "list", &w->manifest_list);
    }
    floe_output *out = NULL;
    if (!st) st = floe_fileio_create_output(a->t->io, w->manifest_list, 0, &out);
    if (!st) {
        floe_ice_manifest_list_options lo = {a->md->format_version, a->snapshot_id,
                                             a->parent ? a->parent->snapshot_id : FLOE_ICE_NO_SNAPSHOT, a->seq,
                                             false, 0};
        st = floe_ice_manifest_list_write(out, &lo, all, (int32_t)(n_prev + 1));
        floe_status cst = floe_output_close(out);
        if (!st) st = cst;
        else floe_status_free(cst);
        if (st) st = floe_status_wrap(st, "writing manifest list %s", w->manifest_list);
    }
    floe_free(all);
    floe_ice_manifest_list_free(old);
    floe_free(v1);
    return st;
}

/* ---- the snapshot summary -------------------------------------------------- */

static const char *parent_prop(const floe_ice_snapshot *p, const char *key) {
    for (int32_t i = 0; p && i < p->n_summary; i++)
        if (strcmp(p->summary[i].key, key) == 0) return p->summary[i].value;
    return NULL;
}

static int set_num(json_t *o, const char *k, int64_t v) {
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    json_t *s = json_string(b);
    return s ? json_object_set_new(o, k, s) : -1;
}

/* total-<x> = parent's total + added, as Java's SnapshotSummary does; no
 * parent counts as zero, a parent that lacks the total leaves it out. */
static int set_total(json_t *o, const floe_ice_snapshot *parent, const char *k, int64_t added) {
    if (!parent) return set_num(o, k, added);
    const char *pv = parent_prop(parent, k);
    if (!pv) return 0;
    char *end = NULL;
    errno = 0;
    long long base = strtoll(pv, &end, 10);
    if (errno || end == pv || *end) return 0; /* not a number: Java would drop it too */
    return set_num(o, k, (int64_t)base + added);
}

static floe_status build_summary(const append *a, const char *const *kv, int32_t n_kv, json_t **out) {
    json_t *o = json_object();
    if (!o) return oom();
    int bad = json_object_set_new(o, "operation", json_string("append"));
    for (int32_t i = 0; i < n_kv && !bad; i++)
        if (strcmp(kv[2 * i], "operation") != 0) bad = json_object_set_new(o, kv[2 * i], json_string(kv[2 * i + 1]));
    if (a->n > 0) {
        bad = bad || set_num(o, "added-data-files", a->n);
        bad = bad || set_num(o, "added-records", a->added_records);
        bad = bad || set_num(o, "added-files-size", a->added_size);
    }
    bad = bad || set_num(o, "changed-partition-count", a->changed_partitions);
    bad = bad || set_total(o, a->parent, "total-records", a->added_records);
    bad = bad || set_total(o, a->parent, "total-files-size", a->added_size);
    bad = bad || set_total(o, a->parent, "total-data-files", a->n);
    bad = bad || set_total(o, a->parent, "total-delete-files", 0);
    bad = bad || set_total(o, a->parent, "total-position-deletes", 0);
    bad = bad || set_total(o, a->parent, "total-equality-deletes", 0);
    if (bad) {
        json_decref(o);
        return oom();
    }
    *out = o;
    return NULL;
}

/* ---- the metadata edit ------------------------------------------------------ */

static json_t *array_member(json_t *root, const char *key) {
    json_t *arr = json_object_get(root, key);
    if (json_is_array(arr)) return arr;
    arr = json_array();
    if (arr && json_object_set_new(root, key, arr)) return NULL;
    return arr;
}

static floe_status install_snapshot(const append *a, const char *list, json_t *summary,
                                    floe_ice_table_metadata **out) {
    json_t *root = NULL;
    floe_status st = floe_ice_tm_edit_begin(a->md, &root);
    if (st) {
        json_decref(summary);
        return st;
    }
    json_t *snap = json_object();
    int bad = !snap;
    if (snap) {
        if (a->md->format_version >= 2) bad |= json_object_set_new(snap, "sequence-number", json_integer(a->seq));
        bad |= json_object_set_new(snap, "snapshot-id", json_integer(a->snapshot_id));
        if (a->parent) bad |= json_object_set_new(snap, "parent-snapshot-id", json_integer(a->parent->snapshot_id));
        bad |= json_object_set_new(snap, "timestamp-ms", json_integer(a->timestamp_ms));
        bad |= json_object_set_new(snap, "summary", summary);
        summary = NULL;
        bad |= json_object_set_new(snap, "manifest-list", json_string(list));
        bad |= json_object_set_new(snap, "schema-id", json_integer(a->schema->schema_id));
    }
    json_decref(summary);
    json_t *snaps = bad ? NULL : array_member(root, "snapshots");
    if (!snaps || json_array_append_new(snaps, snap)) bad = 1;
    else snap = NULL;
    json_decref(snap);

    json_t *entry = json_object();
    json_t *log = bad ? NULL : array_member(root, "snapshot-log");
    if (!entry || !log) bad = 1;
    if (!bad) {
        bad |= json_object_set_new(entry, "timestamp-ms", json_integer(a->timestamp_ms));
        bad |= json_object_set_new(entry, "snapshot-id", json_integer(a->snapshot_id));
        bad |= json_array_append(log, entry);
    }
    json_decref(entry);

    bad = bad || json_object_set_new(root, "current-snapshot-id", json_integer(a->snapshot_id));
    if (a->md->format_version >= 2) bad = bad || json_object_set_new(root, "last-sequence-number", json_integer(a->seq));

    /* "main" follows the new snapshot; other settings of the ref are kept. */
    json_t *refs = json_object_get(root, "refs");
    if (!bad && !json_is_object(refs)) {
        refs = json_object();
        if (!refs || json_object_set_new(root, "refs", refs)) bad = 1;
    }
    if (!bad) {
        json_t *main_ref = json_object_get(refs, "main");
        if (!json_is_object(main_ref)) {
            main_ref = json_object();
            if (!main_ref || json_object_set_new(refs, "main", main_ref)) bad = 1;
        }
        bad = bad || json_object_set_new(main_ref, "snapshot-id", json_integer(a->snapshot_id));
        bad = bad || json_object_set_new(main_ref, "type", json_string("branch"));
    }
    if (bad) {
        json_decref(root);
        return oom();
    }
    return floe_ice_tm_edit_finish(a->md, root, out);
}

static floe_status run_append(append *a, const uint8_t *const *data, const size_t *lens, const char *const *kv,
                              int32_t n_kv, floe_ice_table_metadata **out, floe_ice_append_files *w) {
    const floe_ice_table_metadata *md = a->md;
    if (md->format_version >= 3)
        return floe_error(FLOE_ERR_UNSUPPORTED, "append to a format version %d table (row lineage) is not "
                          "supported yet", md->format_version);
    a->schema = floe_ice_tm_current_schema(md);
    a->spec = floe_ice_tm_default_spec(md);
    if (!a->schema || !a->spec)
        return floe_error(FLOE_ERR_CORRUPT, "append: table %s has no current schema or default spec", md->location);
    a->parent = floe_ice_tm_current_snapshot(md);
    floe_ice_type *ptype = NULL;
    FLOE_TRY(floe_ice_partition_spec_partition_type(a->spec, a->schema, false, &ptype));
    floe_status st = floe_ice_data_file_codec_new(ptype, md->format_version, &a->codec);
    floe_ice_type_free(ptype);
    FLOE_TRY(st);
    FLOE_TRY(decode_files(a, data, lens));
    a->changed_partitions = count_partitions(a);
    FLOE_TRY(new_snapshot_id(md, &a->snapshot_id));
    a->seq = md->format_version >= 2 ? md->last_sequence_number + 1 : 0;
    a->timestamp_ms = floe_ice_now_ms();
    if (a->timestamp_ms < md->last_updated_ms) a->timestamp_ms = md->last_updated_ms;
    FLOE_TRY(write_manifest(a, w));
    FLOE_TRY(write_list(a, w));
    json_t *summary = NULL;
    FLOE_TRY(build_summary(a, kv, n_kv, &summary));
    return install_snapshot(a, w->manifest_list, summary, out);
}

floe_status floe_ice_tm_append_snapshot(const floe_ice_table *t, const uint8_t *const *data_files,
                                        const size_t *lens, int32_t n, const char *const *summary_kv,
                                        int32_t n_kv, floe_ice_table_metadata **out,
                                        floe_ice_append_files *written) {
    *out = NULL;
    written->manifest = written->manifest_list = NULL;
    if (!t || !t->md || n < 0 || (n > 0 && (!data_files || !lens)) || n_kv < 0 || (n_kv > 0 && !summary_kv))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "append: bad arguments (table, %d data files, %d summary pairs)",
                          n, n_kv);
    append a;
    memset(&a, 0, sizeof a);
    a.t = t;
    a.md = t->md;
    a.n = n;
    a.rec.existing_files_count = a.rec.deleted_files_count = -1;
    a.rec.existing_rows_count = a.rec.deleted_rows_count = -1;
    floe_arena_init(&a.arena, 0);
    floe_status st = run_append(&a, data_files, lens, summary_kv, n_kv, out, written);
    floe_ice_data_file_codec_free(a.codec);
    floe_arena_destroy(&a.arena);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
