/*
 * manifest_merge.c — keeping many small commits from piling up manifests:
 * Iceberg Java's ManifestMergeManager, as MergingSnapshotProducer runs it
 * on every append, overwrite, delete and row delta (what Java's
 * newAppend, not newFastAppend, does).  See
 * floe_ice_producer_merge_manifests in snapshot_producer.h.
 *
 * Java's rules, in order:
 *   - data manifests and delete manifests merge apart (two managers), the
 *     data ones first in the list;
 *   - within each, manifests are grouped by partition spec id, highest
 *     first, keeping their list order inside a group;
 *   - a group is bin-packed by manifest length into bins of
 *     commit.manifest.target-size-bytes with a look-back of one, from the
 *     end (ListPacker.packEnd), so the bin left under-filled is the first
 *     one — the one with the newest manifests, merged again next time;
 *   - a bin of one manifest is kept as it is; the bin holding the first
 *     manifest of the list (the one this commit added, if any) is merged
 *     only once it has commit.manifest.min-count-to-merge manifests; any
 *     other bin of several manifests is merged;
 *   - a merged manifest keeps every live entry: ADDED by this snapshot
 *     stays ADDED (ids inherited from the list), others become EXISTING
 *     with their snapshot id and sequence numbers; DELETED entries are
 *     kept only when this snapshot deleted them.
 * Nothing is cached across commit retries: each attempt rebuilds its list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"

#define DEFAULT_MIN_COUNT 100
#define DEFAULT_TARGET_BYTES (8LL * 1024 * 1024)

static floe_status oom(const floe_ice_producer *p) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory merging manifests (%s)", p->what);
}

typedef struct merge_settings {
    bool enabled;
    int64_t min_count, target;
} merge_settings;

static floe_status bad_property(const char *key, const char *v, const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table property %s is '%s': %s", key, v, why);
}

static floe_status long_property(const floe_ice_table_metadata *md, const char *key, int64_t def, int64_t *out) {
    const char *v = floe_ice_tm_property(md, key);
    *out = def;
    if (!v) return NULL;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno) return bad_property(key, v, "not an integer");
    *out = x;
    return NULL;
}

static floe_status read_settings(const floe_ice_table_metadata *md, merge_settings *s) {
    const char *key = "commit.manifest-merge.enabled";
    const char *v = floe_ice_tm_property(md, key);
    s->enabled = true;
    if (v && strcasecmp(v, "false") == 0) s->enabled = false;
    else if (v && strcasecmp(v, "true") != 0) return bad_property(key, v, "must be true or false");
    FLOE_TRY(long_property(md, "commit.manifest.min-count-to-merge", DEFAULT_MIN_COUNT, &s->min_count));
    FLOE_TRY(long_property(md, "commit.manifest.target-size-bytes", DEFAULT_TARGET_BYTES, &s->target));
    return NULL;
}

/* Delete a manifest this commit wrote and merged away, and forget it in w
 * (found by its location string, which the list record shares). */
static void drop_own(floe_ice_producer *p, floe_ice_append_files *w, const char *path) {
    char **slot = NULL;
    if (w->manifest && w->manifest == path) slot = &w->manifest;
    for (int32_t i = 0; !slot && i < w->n_rewritten; i++)
        if (w->rewritten[i] && w->rewritten[i] == path) slot = &w->rewritten[i];
    if (!slot) return;
    floe_status_free(floe_fileio_delete(p->t->io, *slot));
    floe_free(*slot);
    *slot = NULL;
}

/* Merge the manifests bin[0..n) (list records) into one new manifest of
 * `content` and spec `spec_id`, its record in *rec. */
static floe_status merge_bin(floe_ice_producer *p, floe_ice_manifest_content content, int32_t spec_id,
                             const floe_ice_manifest_file *const *bin, size_t n, floe_ice_append_files *w,
                             floe_ice_manifest_file *rec) {
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, spec_id);
    if (!spec)
        return floe_error(FLOE_ERR_CORRUPT, "%s: manifest %s uses partition spec %d, which the table does not have",
                          p->what, bin[0]->manifest_path, (int)spec_id);
    floe_ice_manifest **ms = floe_calloc(n, sizeof *ms);
    if (!ms) return oom(p);
    floe_status st = NULL;
    size_t total = 0;
    for (size_t i = 0; !st && i < n; i++) {
        st = floe_ice_producer_read_manifest(p, bin[i], &ms[i]);
        if (!st) total += ms[i]->n_entries;
    }
    floe_ice_manifest_entry *e = st ? NULL : floe_malloc((total ? total : 1) * sizeof *e);
    if (!st && !e) st = oom(p);
    size_t k = 0;
    for (size_t i = 0; !st && i < n; i++) {
        for (size_t j = 0; j < ms[i]->n_entries; j++) {
            const floe_ice_manifest_entry *x = &ms[i]->entries[j];
            floe_ice_manifest_entry *y = &e[k];
            *y = *x;
            if (x->status == FLOE_ICE_STATUS_DELETED) {
                /* deletes of earlier snapshots are history: dropped */
                if (x->snapshot_id != p->snapshot_id) continue;
            } else if (x->status == FLOE_ICE_STATUS_ADDED && x->snapshot_id == p->snapshot_id) {
                /* still this commit's: ids and sequence numbers inherited */
                y->snapshot_id = y->sequence_number = y->file_sequence_number = -1;
            } else {
                y->status = FLOE_ICE_STATUS_EXISTING;
            }
            k++;
        }
    }
    if (!st) st = floe_ice_producer_write_entries(p, content, spec, e, k, w, rec);
    floe_free(e);
    for (size_t i = 0; i < n; i++) floe_ice_manifest_free(ms[i]);
    floe_free(ms);
    return st;
}

static int cmp_desc(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

/* Merge the manifests `in[0..n)` (all of one content, list order) onto
 * out[*n_out...]; *merged_any set when a bin was merged. */
static floe_status merge_kind(floe_ice_producer *p, const merge_settings *s, floe_ice_manifest_content content,
                              const floe_ice_manifest_file *const *in, size_t n, floe_ice_manifest_file *out,
                              size_t *n_out, floe_ice_append_files *w) {
    if (n == 0) return NULL;
    const floe_ice_manifest_file *first = in[0];
    int32_t *specs = floe_malloc(n * sizeof *specs);
    const floe_ice_manifest_file **group = floe_malloc(n * sizeof *group);
    size_t *bin_start = floe_malloc((n + 1) * sizeof *bin_start);
    floe_status st = specs && group && bin_start ? NULL : oom(p);
    size_t n_specs = 0;
    for (size_t i = 0; !st && i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < n_specs && !seen; j++) seen = specs[j] == in[i]->partition_spec_id;
        if (!seen) specs[n_specs++] = in[i]->partition_spec_id;
    }
    if (!st) qsort(specs, n_specs, sizeof *specs, cmp_desc);
    for (size_t g = 0; !st && g < n_specs; g++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (in[i]->partition_spec_id == specs[g]) group[m++] = in[i];
        /* Pack from the end: a bin takes the next (earlier) manifest while
         * its weight stays within the target; bin_start holds, back to
         * front, where each bin begins. */
        size_t n_bins = 0;
        int64_t weight = 0;
        for (size_t j = m; j-- > 0;) {
            int64_t len = group[j]->manifest_length > 0 ? group[j]->manifest_length : 0;
            if (n_bins == 0 || weight + len > s->target) {
                bin_start[n_bins++] = j;
                weight = 0;
            } else {
                bin_start[n_bins - 1] = j;
            }
            weight += len;
        }
        /* Bins front to back: bin b spans [bin_start[b], end). */
        for (size_t b = n_bins; !st && b-- > 0;) {
            size_t lo = bin_start[b], hi = b > 0 ? bin_start[b - 1] : m, size = hi - lo;
            bool has_first = false;
            for (size_t j = lo; j < hi && !has_first; j++) has_first = group[j] == first;
            if (size == 1 || (has_first && (int64_t)size < s->min_count)) {
                for (size_t j = lo; j < hi; j++) out[(*n_out)++] = *group[j];
                continue;
            }
            st = merge_bin(p, content, specs[g], group + lo, size, w, &out[*n_out]);
            if (st) break;
            (*n_out)++;
            for (size_t j = lo; j < hi; j++) drop_own(p, w, group[j]->manifest_path);
        }
    }
    floe_free(specs);
    floe_free(group);
    floe_free(bin_start);
    return st;
}

floe_status floe_ice_producer_merge_manifests(floe_ice_producer *p, floe_ice_manifest_file **all, size_t *n,
                                              floe_ice_append_files *w) {
    merge_settings s;
    FLOE_TRY_CTX(read_settings(p->md, &s), "%s", p->what);
    if (!s.enabled || *n == 0) return NULL;
    size_t count = *n;
    const floe_ice_manifest_file **data = floe_malloc(count * sizeof *data);
    const floe_ice_manifest_file **dels = floe_malloc(count * sizeof *dels);
    floe_ice_manifest_file *out = floe_calloc(count, sizeof *out);
    /* Room in w->rewritten for the merged manifests (fewer than count). */
    char **grown = floe_realloc(w->rewritten, ((size_t)w->n_rewritten + count + 1) * sizeof *grown);
    if (grown) w->rewritten = grown;
    floe_status st = data && dels && out && grown ? NULL : oom(p);
    size_t n_data = 0, n_dels = 0, n_out = 0;
    for (size_t i = 0; !st && i < count; i++) {
        const floe_ice_manifest_file *mf = &(*all)[i];
        if (mf->content == FLOE_ICE_MANIFEST_DELETES) dels[n_dels++] = mf;
        else data[n_data++] = mf;
    }
    if (!st) st = merge_kind(p, &s, FLOE_ICE_MANIFEST_DATA, data, n_data, out, &n_out, w);
    if (!st) st = merge_kind(p, &s, FLOE_ICE_MANIFEST_DELETES, dels, n_dels, out, &n_out, w);
    floe_free(data);
    floe_free(dels);
    if (st) {
        floe_free(out);
        return floe_status_wrap(st, "%s: merging manifests", p->what);
    }
    floe_free(*all);
    *all = out;
    *n = n_out;
    return NULL;
}
