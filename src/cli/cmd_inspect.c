/*
 * cmd_inspect.c — `floe inspect`: what an Iceberg table holds.
 *
 *   floe inspect TABLE_DIR_OR_METADATA_JSON [--snapshot ID] [--files]
 *                [--allow-moved-paths] [--format table|jsonl]
 *
 * Without --files: format version, location, current snapshot, schemas,
 * partition specs, sort orders, properties, snapshots and refs (with
 * --format jsonl: the metadata itself as one line of JSON).  With --files:
 * every live data and delete file of the snapshot (the current one unless
 * --snapshot) with content type, record count, size and partition; with
 * --format jsonl one JSON object per file using the spec's data_file names
 * (content, file_path, file_format, record_count, file_size_in_bytes,
 * partition, spec_id) plus resolved_path, status and sequence numbers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buffer.h"
#include "cli/commands.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/memory.h"

static const char inspect_usage[] =
    "usage: floe inspect TABLE_DIR_OR_METADATA_JSON [--snapshot ID] [--files]\n"
    "                    [--allow-moved-paths] [--format table|jsonl]";

static floe_status usage_err(const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s\n%s", why, inspect_usage);
}

static floe_status flush(floe_buf *b) {
    if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len)
        return floe_error(FLOE_ERR_IO, "writing to standard output failed");
    floe_buf_clear(b);
    return NULL;
}

static const char *field_name(const floe_ice_partition_spec *spec, int32_t id) {
    for (int32_t i = 0; spec && i < spec->n_fields; i++)
        if (spec->fields[i].field_id == id) return spec->fields[i].name;
    return NULL;
}

/* {"name": json-value, ...} for a file's partition tuple. */
static floe_status partition_json(floe_buf *b, const floe_ice_table_metadata *md, const floe_ice_data_file *f) {
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(md, f->spec_id);
    FLOE_TRY(floe_buf_append_byte(b, '{'));
    for (int32_t i = 0; i < f->n_partition; i++) {
        const char *name = field_name(spec, f->partition_ids[i]);
        char fallback[32];
        if (!name) snprintf(fallback, sizeof fallback, "%d", f->partition_ids[i]), name = fallback;
        json_t *jn = json_string(name);
        char *qn = jn ? json_dumps(jn, JSON_ENCODE_ANY) : NULL;
        json_decref(jn);
        if (!qn) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        floe_status st = floe_buf_printf(b, "%s%s:", i ? "," : "", qn);
        free(qn);
        FLOE_TRY(st);
        char *v = NULL;
        FLOE_TRY(floe_ice_value_to_json_text(&f->partition[i], &v));
        st = floe_buf_append_str(b, v);
        floe_free(v);
        FLOE_TRY(st);
    }
    return floe_buf_append_byte(b, '}');
}

static floe_status json_str(floe_buf *b, const char *s) {
    json_t *j = json_string(s ? s : "");
    char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (!q) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    floe_status st = floe_buf_append_str(b, q);
    free(q);
    return st;
}

static floe_status print_files(const floe_ice_table *t, const floe_ice_snapshot *snap, bool jsonl) {
    floe_ice_live_files *lf = NULL;
    FLOE_TRY(floe_ice_table_live_files(t, snap, NULL, &lf));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = NULL;
    if (!jsonl)
        st = floe_buf_printf(&b, "%-17s %12s %12s  %-24s %s\n", "content", "records", "bytes", "partition", "path");
    for (size_t i = 0; !st && i < lf->n; i++) {
        const floe_ice_live_file *f = &lf->files[i];
        if (jsonl) {
            st = floe_buf_printf(&b, "{\"content\":%d,\"file_path\":", (int)f->file.content);
            if (!st) st = json_str(&b, f->file.file_path);
            if (!st) st = floe_buf_append_str(&b, ",\"file_format\":");
            if (!st) st = json_str(&b, f->file.file_format);
            if (!st)
                st = floe_buf_printf(&b, ",\"record_count\":%" PRId64 ",\"file_size_in_bytes\":%" PRId64 ",\"partition\":",
                                     f->file.record_count, f->file.file_size_in_bytes);
            if (!st) st = partition_json(&b, t->md, &f->file);
            if (!st)
                st = floe_buf_printf(&b, ",\"spec_id\":%d,\"status\":%d,\"sequence_number\":%" PRId64
                                         ",\"file_sequence_number\":%" PRId64 ",\"resolved_path\":",
                                     f->file.spec_id, (int)f->status, f->sequence_number, f->file_sequence_number);
            if (!st) st = json_str(&b, f->resolved_path);
            if (!st) st = floe_buf_append_str(&b, "}\n");
        } else {
            floe_buf part = FLOE_BUF_INIT;
            st = partition_json(&part, t->md, &f->file);
            if (!st)
                st = floe_buf_printf(&b, "%-17s %12" PRId64 " %12" PRId64 "  %-24s %s\n", floe_ice_content_name(f->file.content),
                                     f->file.record_count, f->file.file_size_in_bytes, floe_buf_cstr(&part),
                                     f->resolved_path);
            floe_buf_free(&part);
        }
        if (!st && b.len > 65536) st = flush(&b);
    }
    if (!st && !jsonl) st = floe_buf_printf(&b, "%zu live files in %zu manifests\n", lf->n, lf->n_manifests);
    if (!st) st = flush(&b);
    floe_buf_free(&b);
    floe_ice_live_files_free(lf);
    return st;
}

static floe_status print_summary(const floe_ice_table *t, const floe_ice_snapshot *snap) {
    const floe_ice_table_metadata *md = t->md;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&b, "metadata:        %s\nformat-version:  %d\ntable-uuid:      %s\nlocation:        %s\n",
                                     t->metadata_location, md->format_version, md->table_uuid ? md->table_uuid : "-",
                                     md->location);
    if (!st) {
        if (snap) st = floe_buf_printf(&b, "snapshot:        %" PRId64 "%s\n", snap->snapshot_id,
                                        snap->snapshot_id == md->current_snapshot_id ? " (current)" : "");
        else st = floe_buf_append_str(&b, "snapshot:        none\n");
    }
    for (int32_t i = 0; !st && i < md->n_schemas; i++) {
        char *txt = NULL;
        const floe_ice_schema *s = md->schemas[i];
        st = floe_ice_type_to_string(s->root, &txt);
        if (!st) st = floe_buf_printf(&b, "schema %d%s: %s\n", s->schema_id,
                                       s->schema_id == md->current_schema_id ? " (current)" : "", txt);
        floe_free(txt);
    }
    for (int32_t i = 0; !st && i < md->n_specs; i++) {
        char *txt = NULL;
        st = floe_ice_partition_spec_to_json_text(md->specs[i], &txt);
        if (!st) st = floe_buf_printf(&b, "partition spec %d%s: %s\n", md->specs[i]->spec_id,
                                       md->specs[i]->spec_id == md->default_spec_id ? " (default)" : "", txt);
        floe_free(txt);
    }
    for (int32_t i = 0; !st && i < md->n_sort_orders; i++) {
        char *txt = NULL;
        st = floe_ice_sort_order_to_json_text(md->sort_orders[i], &txt);
        if (!st) st = floe_buf_printf(&b, "sort order %d%s: %s\n", md->sort_orders[i]->order_id,
                                       md->sort_orders[i]->order_id == md->default_sort_order_id ? " (default)" : "", txt);
        floe_free(txt);
    }
    for (int32_t i = 0; !st && i < md->n_properties; i++)
        st = floe_buf_printf(&b, "property %s = %s\n", md->properties[i].key, md->properties[i].value);
    for (int32_t i = 0; !st && i < md->n_snapshots; i++) {
        const floe_ice_snapshot *s = &md->snapshots[i];
        st = floe_buf_printf(&b, "snapshot %" PRId64 " parent %" PRId64 " seq %" PRId64 " ts %" PRId64 " %s %s\n",
                             s->snapshot_id, s->parent_snapshot_id, s->sequence_number, s->timestamp_ms,
                             s->operation ? s->operation : "-", s->manifest_list ? s->manifest_list : "(v1 manifests)");
    }
    for (int32_t i = 0; !st && i < md->n_refs; i++)
        st = floe_buf_printf(&b, "ref %s (%s) -> %" PRId64 "\n", md->refs[i].name, md->refs[i].is_tag ? "tag" : "branch",
                             md->refs[i].snapshot_id);
    if (!st) st = flush(&b);
    floe_buf_free(&b);
    return st;
}

floe_status floe_cli_inspect(int argc, char **argv) {
    const char *path = NULL, *snap_arg = NULL, *format = "table";
    bool files = false, moved = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            printf("%s\n", inspect_usage);
            return NULL;
        } else if (!strcmp(a, "--files")) files = true;
        else if (!strcmp(a, "--allow-moved-paths")) moved = true;
        else if (!strcmp(a, "--snapshot") && i + 1 < argc) snap_arg = argv[++i];
        else if (!strcmp(a, "--format") && i + 1 < argc) format = argv[++i];
        else if (a[0] == '-' && a[1] == '-') return usage_err("floe inspect: unknown option or missing value");
        else if (!path) path = a;
        else return usage_err("floe inspect: more than one table given");
    }
    if (!path) return usage_err("floe inspect: missing TABLE_DIR_OR_METADATA_JSON");
    bool jsonl = !strcmp(format, "jsonl");
    if (!jsonl && strcmp(format, "table")) return usage_err("floe inspect: --format must be table or jsonl");

    floe_fileio *io = NULL;
    FLOE_TRY(floe_fileio_new(NULL, 0, &io));
    floe_ice_table *t = NULL;
    floe_status st = floe_ice_table_open(io, path, moved, &t);
    const floe_ice_snapshot *snap = NULL;
    if (!st) {
        if (snap_arg) {
            char *end;
            long long id = strtoll(snap_arg, &end, 10);
            if (*end || end == snap_arg) st = floe_ice_tm_snapshot_by_ref(t->md, snap_arg, &snap);
            else if (!(snap = floe_ice_tm_snapshot(t->md, id)))
                st = floe_error(FLOE_ERR_NOT_FOUND, "table '%s' has no snapshot %lld", path, id);
        } else {
            snap = floe_ice_tm_current_snapshot(t->md);
        }
    }
    if (!st) {
        if (files) {
            if (snap) st = print_files(t, snap, jsonl);
            else if (!jsonl) printf("the table has no snapshot: no files\n");
        } else if (jsonl) {
            char *txt = NULL;
            st = floe_ice_table_metadata_to_json(t->md, 0, &txt);
            if (!st) printf("%s\n", txt);
            floe_free(txt);
        } else {
            st = print_summary(t, snap);
        }
    }
    floe_ice_table_free(t);
    floe_fileio_free(io);
    return st;
}
