/*
 * scan_files.c — the files of a ParquetScan: globs (glob(3) locally,
 * fnmatch(3) over a listing on S3, a directory walk for `**`) and the Hive
 * partitions in their paths (see scan_files.h).
 */
#include "exec/scan/scan_files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "exec/expr/cast.h"
#include "floe/memory.h"

#define WALK_DEPTH 64 /* directories below a `**` pattern's base */

bool scan_is_remote(const char *path) {
    return strncmp(path, "s3://", 5) == 0 || strncmp(path, "s3a://", 6) == 0 || strncmp(path, "s3n://", 6) == 0;
}

/* "file:///a/b" and "file:/a/b" are "/a/b". */
const char *scan_local_path(const char *path) {
    if (strncmp(path, "file://", 7) == 0) return path + 7;
    if (strncmp(path, "file:", 5) == 0) return path + 5;
    return path;
}

void scan_file_list_free(scan_file_list *l) {
    for (int32_t i = 0; i < l->n; i++) floe_free(l->v[i]);
    floe_free(l->v);
    floe_free(l->size);
    memset(l, 0, sizeof *l);
}

static floe_status list_add(scan_file_list *l, const char *path, uint64_t size) {
    for (int32_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], path) == 0) return NULL; /* matched twice: read once */
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        char **nv = floe_realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing Parquet files");
        l->v = nv;
        uint64_t *ns = floe_realloc(l->size, (size_t)cap * sizeof *ns);
        if (!ns) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing Parquet files");
        l->size = ns;
        l->cap = cap;
    }
    if (!(l->v[l->n] = floe_strdup(path))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing Parquet files");
    l->size[l->n++] = size;
    return NULL;
}

static bool has_glob_chars(const char *s) { return strpbrk(s, "*?[") != NULL; }

/* ------------------------------------------------------------ `**` globs */

/* Does the pattern have a path segment that is exactly `**`? */
static bool has_globstar(const char *p) {
    for (const char *s = strstr(p, "**"); s; s = strstr(s + 1, "**"))
        if ((s == p || s[-1] == '/') && (s[2] == 0 || s[2] == '/')) return true;
    return false;
}

/* Segment-wise match: `**` takes zero or more whole segments, any other
 * segment one, by fnmatch (a leading dot is matched only explicitly, as
 * glob(3) does). */
static bool match_from(const char *pat, const char *path) {
    if (*pat == 0) return *path == 0;
    const char *pe = strchr(pat, '/');
    size_t pl = pe ? (size_t)(pe - pat) : strlen(pat);
    const char *prest = pe ? pe + 1 : pat + pl;
    if (pl == 2 && pat[0] == '*' && pat[1] == '*') {
        for (const char *s = path;;) {
            if (match_from(prest, s)) return true;
            const char *n = strchr(s, '/');
            if (!n || !*s) return false;
            s = n + 1;
        }
    }
    if (*path == 0) return false;
    const char *se = strchr(path, '/');
    size_t sl = se ? (size_t)(se - path) : strlen(path);
    char ps[1024], ss[1024];
    if (pl >= sizeof ps || sl >= sizeof ss) return false;
    memcpy(ps, pat, pl);
    ps[pl] = 0;
    memcpy(ss, path, sl);
    ss[sl] = 0;
    if (fnmatch(ps, ss, FNM_PERIOD) != 0) return false;
    if (!pe) return se == NULL;
    return se && match_from(prest, se + 1);
}

/* Every regular file under `dir` (not entering hidden directories) whose
 * path matches `pat`. */
static floe_status walk(const char *dir, const char *pat, int depth, scan_file_list *out) {
    if (depth > WALK_DEPTH) return NULL;
    DIR *d = opendir(dir);
    if (!d) return depth == 0 && errno != ENOENT ? floe_error(FLOE_ERR_IO, "listing '%s': %s", dir, strerror(errno)) : NULL;
    floe_status st = NULL;
    struct dirent *de;
    while (!st && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue; /* ., .., hidden files and folders */
        size_t n = strlen(dir) + strlen(de->d_name) + 2;
        char *p = floe_malloc(n);
        if (!p) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing '%s'", dir);
            break;
        }
        if (strcmp(dir, ".") == 0) snprintf(p, n, "%s", de->d_name); /* a relative pattern: relative paths */
        else snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
        struct stat sb;
        if (stat(p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) st = walk(p, pat, depth + 1, out);
            else if (S_ISREG(sb.st_mode) && match_from(pat, p)) st = list_add(out, p, (uint64_t)sb.st_size);
        }
        floe_free(p);
    }
    closedir(d);
    return st;
}

/* The directory a local `**` pattern's walk starts at: its segments before
 * the first one holding a glob character ("." when there are none). */
static floe_status walk_base(const char *pat, char **out) {
    size_t end = 0;
    for (size_t i = 0;;) {
        const char *sl = strchr(pat + i, '/');
        size_t seg_end = sl ? (size_t)(sl - pat) : strlen(pat);
        bool glob = false;
        for (size_t k = i; k < seg_end; k++) glob |= strchr("*?[", pat[k]) != NULL;
        if (glob || !sl) break;
        end = seg_end;
        i = seg_end + 1;
    }
    if (end == 0 && pat[0] == '/') end = 1;
    *out = end ? floe_strndup(pat, end) : floe_strdup(".");
    return *out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "expanding '%s'", pat);
}

/* ------------------------------------------------------------- expanding */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct s3_match {
    const char *pattern;
    bool globstar;
    scan_file_list *found;
} s3_match;

static floe_status s3_list_fn(void *ctx, const floe_file_info *info) {
    s3_match *m = ctx;
    bool ok = m->globstar ? match_from(m->pattern, info->location)
                          : fnmatch(m->pattern, info->location, FNM_PATHNAME) == 0;
    return ok ? list_add(m->found, info->location, info->size) : NULL;
}

floe_status scan_expand_pattern(const char *pattern, floe_fileio **io, scan_file_list *out) {
    scan_file_list found = {0};
    floe_status st = NULL;
    if (scan_is_remote(pattern)) {
        if (!*io) FLOE_TRY(floe_fileio_new(NULL, 0, io));
        if (!has_glob_chars(pattern)) {
            int exists = 0;
            st = floe_fileio_exists(*io, pattern, &exists);
            if (!st && exists) st = list_add(&found, pattern, 0);
        } else {
            size_t pre = strcspn(pattern, "*?[");
            char *prefix = floe_strndup(pattern, pre);
            if (!prefix) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing '%s'", pattern);
            s3_match m = {pattern, has_globstar(pattern), &found};
            st = floe_fileio_list(*io, prefix, s3_list_fn, &m);
            floe_free(prefix);
        }
    } else if (!has_glob_chars(pattern)) {
        struct stat sb;
        if (stat(scan_local_path(pattern), &sb) == 0 && S_ISREG(sb.st_mode))
            st = list_add(&found, scan_local_path(pattern), (uint64_t)sb.st_size);
    } else if (has_globstar(pattern)) {
        char *base = NULL;
        const char *lp = scan_local_path(pattern);
        st = walk_base(lp, &base);
        if (!st) {
            /* Match paths in the pattern's own form ("./x" stays "./x"). */
            st = walk(base, lp, 0, &found);
            floe_free(base);
        }
    } else {
        glob_t g;
        int rc = glob(scan_local_path(pattern), 0, NULL, &g);
        if (rc == GLOB_NOSPACE) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "expanding '%s'", pattern);
        else if (rc == GLOB_ABORTED) st = floe_error(FLOE_ERR_IO, "expanding '%s': a directory could not be read", pattern);
        for (size_t i = 0; rc == 0 && !st && i < g.gl_pathc; i++) {
            struct stat sb;
            if (stat(g.gl_pathv[i], &sb) == 0 && S_ISREG(sb.st_mode))
                st = list_add(&found, g.gl_pathv[i], (uint64_t)sb.st_size);
        }
        if (rc == 0 || rc == GLOB_NOMATCH) globfree(&g);
    }
    if (!st && found.n == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "no file matches '%s'", pattern);
    if (!st && found.n > 1) {
        /* Sort paths, keeping each one's size beside it. */
        char **sorted = floe_calloc((size_t)found.n, sizeof *sorted);
        if (!sorted) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing '%s'", pattern);
        for (int32_t i = 0; !st && i < found.n; i++) sorted[i] = found.v[i];
        if (!st && found.n > 1) qsort(sorted, (size_t)found.n, sizeof *sorted, cmp_str);
        for (int32_t i = 0; !st && i < found.n; i++) {
            uint64_t size = 0;
            for (int32_t k = 0; k < found.n; k++)
                if (found.v[k] == sorted[i]) size = found.size[k];
            st = list_add(out, sorted[i], size);
        }
        floe_free(sorted);
    } else {
        for (int32_t i = 0; !st && i < found.n; i++) st = list_add(out, found.v[i], found.size[i]);
    }
    scan_file_list_free(&found);
    return st;
}

/* ------------------------------------------------------- Hive partitions */

void scan_hive_free(scan_hive *h) {
    for (int32_t f = 0; h->values && f < h->n_files; f++) {
        for (int32_t k = 0; h->values[f] && k < h->n_keys; k++) floe_free(h->values[f][k]);
        floe_free(h->values[f]);
    }
    floe_free(h->values);
    for (int32_t k = 0; k < h->n_keys; k++) {
        floe_free(h->keys[k]);
        if (h->types) floe_type_release(h->types[k]);
    }
    floe_free(h->keys);
    floe_free(h->types);
    memset(h, 0, sizeof *h);
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* %XX escapes decoded (as Hive writes them: '/', '=', '%', ':' ...). */
static char *url_decode(const char *s, size_t n) {
    char *o = floe_malloc(n + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (s[i] == '%' && i + 2 < n && (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
            (lo = hexval((unsigned char)s[i + 2])) >= 0) {
            o[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = 0;
    return o;
}

/* One path's pairs, in path order, first of each key kept; each value's
 * class (hive_class) as its folder name spells it, before decoding (as
 * DuckDB detects types: a timestamp whose ':' are escaped is text). */
typedef struct kv_list {
    char **k, **v;
    int *cls;
    int32_t n;
} kv_list;

static void kv_free(kv_list *l) {
    for (int32_t i = 0; i < l->n; i++) {
        floe_free(l->k[i]);
        floe_free(l->v[i]);
    }
    floe_free(l->k);
    floe_free(l->v);
    floe_free(l->cls);
    memset(l, 0, sizeof *l);
}

static bool is_null_marker(const char *v) {
    return !*v || strcmp(v, "__HIVE_DEFAULT_PARTITION__") == 0 || strcasecmp(v, "NULL") == 0;
}

static int classify_raw(const char *raw, size_t n);

static floe_status path_pairs(const char *path, kv_list *out) {
    const char *last = strrchr(path, '/');
    for (const char *s = path; last && s < last;) {
        const char *e = memchr(s, '/', (size_t)(last - s + 1));
        size_t len = (size_t)(e - s);
        const char *eq = memchr(s, '=', len);
        if (eq && eq > s && !memchr(eq + 1, '=', len - (size_t)(eq - s) - 1)) {
            char *k = url_decode(s, (size_t)(eq - s)), *v = url_decode(eq + 1, len - (size_t)(eq - s) - 1);
            char **nk = k && v ? floe_realloc(out->k, (size_t)(out->n + 1) * sizeof *nk) : NULL;
            if (nk) out->k = nk;
            char **nv = nk ? floe_realloc(out->v, (size_t)(out->n + 1) * sizeof *nv) : NULL;
            if (nv) out->v = nv;
            int *nc = nv ? floe_realloc(out->cls, (size_t)(out->n + 1) * sizeof *nc) : NULL;
            if (nc) out->cls = nc;
            if (!nc) {
                floe_free(k);
                floe_free(v);
                return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading the partitions of '%s'", path);
            }
            bool dup = false;
            for (int32_t i = 0; i < out->n; i++) dup |= strcmp(out->k[i], k) == 0;
            if (dup) {
                floe_free(k);
                floe_free(v);
            } else {
                if (is_null_marker(v)) {
                    floe_free(v);
                    v = NULL;
                }
                out->cls[out->n] = v ? classify_raw(eq + 1, len - (size_t)(eq - s) - 1) : 0;
                out->k[out->n] = k;
                out->v[out->n++] = v;
            }
        }
        s = e + 1;
    }
    return NULL;
}

/* -------------------------------------------------------------- typing */

typedef enum { HT_NULL, HT_BIGINT, HT_DATE, HT_TIMESTAMP, HT_VARCHAR } hive_class;

static bool is_bigint(const char *s) {
    const char *d = *s == '-' ? s + 1 : s;
    size_t n = strlen(d);
    if (n == 0 || n > 19 || strspn(d, "0123456789") != n) return false;
    if (n > 1 && d[0] == '0') return false; /* "007" stays text, as DuckDB keeps it */
    errno = 0;
    (void)strtoll(s, NULL, 10);
    return errno == 0;
}

static size_t digits(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && isdigit((unsigned char)s[n])) n++;
    return n;
}

/* "Y-M-D" (1-2 digit month and day) -> "YYYY-MM-DD" in out; bytes used. */
static size_t date_part(const char *s, char *out, size_t cap) {
    size_t a = digits(s, 6);
    if (a < 1 || s[a] != '-') return 0;
    size_t b = digits(s + a + 1, 2);
    if (b < 1 || s[a + 1 + b] != '-') return 0;
    size_t c = digits(s + a + 2 + b, 2);
    if (c < 1) return 0;
    snprintf(out, cap, "%04d-%02d-%02d", atoi(s), atoi(s + a + 1), atoi(s + a + 2 + b));
    return a + b + c + 2;
}

/* The value in the canonical text form floe's cast reads, or false. */
static bool canonical(const char *s, hive_class c, char *out, size_t cap) {
    char date[40];
    size_t n = date_part(s, date, sizeof date);
    if (!n) return false;
    if (c == HT_DATE) {
        snprintf(out, cap, "%s", date);
        return s[n] == 0;
    }
    const char *t = s + n;
    if (*t != ' ' && *t != 'T') return false;
    t++;
    size_t h = digits(t, 2);
    if (h < 1 || t[h] != ':' || digits(t + h + 1, 2) != 2) return false;
    const char *rest = t + h + 3;
    char sec[40] = ":00";
    if (*rest == ':') {
        size_t sd = digits(rest + 1, 2), frac = 0;
        if (sd != 2) return false;
        if (rest[3] == '.') {
            frac = digits(rest + 4, 9);
            if (!frac) return false;
        }
        snprintf(sec, sizeof sec, "%.*s", (int)(3 + (frac ? frac + 1 : 0)), rest);
        rest += 3 + (frac ? frac + 1 : 0);
    }
    if (*rest) return false;
    snprintf(out, cap, "%sT%02d:%.2s%s", date, atoi(t), t + h + 1, sec);
    return true;
}

/* Text as a one-row array of `type` (string, or date / timestamp through
 * floe's cast). */
static floe_status cast_text(const char *text, floe_type *type, floe_array **out) {
    floe_builder *b = NULL;
    floe_array *s = NULL;
    FLOE_TRY(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 1, &b));
    floe_status st = floe_builder_append_string(b, text);
    if (!st) st = floe_builder_finish(b, &s);
    floe_builder_free(b);
    if (!st && type->id == FLOE_TYPE_STRING) {
        *out = s;
        return NULL;
    }
    if (!st) st = floe_exec_cast_extra_array(s, type, 1, out);
    floe_array_release(s);
    return st;
}

static bool casts(const char *s, hive_class c) {
    char canon[96];
    if (!canonical(s, c, canon, sizeof canon)) return false;
    floe_array *a = NULL;
    floe_status st = cast_text(canon, floe_type_primitive(c == HT_DATE ? FLOE_TYPE_DATE32 : FLOE_TYPE_TIMESTAMP_US), &a);
    floe_array_release(a);
    floe_status_free(st);
    return st == NULL;
}

static int classify_raw(const char *raw, size_t n) {
    char v[128];
    if (n >= sizeof v) return HT_VARCHAR;
    memcpy(v, raw, n);
    v[n] = 0;
    if (is_bigint(v)) return HT_BIGINT;
    if (casts(v, HT_DATE)) return HT_DATE;
    if (casts(v, HT_TIMESTAMP)) return HT_TIMESTAMP;
    return HT_VARCHAR;
}

floe_status scan_hive_value(const char *text, floe_type *type, floe_array **out) {
    *out = NULL;
    if (!text) return floe_array_new_nulls(type, 1, out);
    if (type->id == FLOE_TYPE_STRING) return cast_text(text, type, out);
    if (type->id == FLOE_TYPE_INT64) {
        floe_builder *b = NULL;
        FLOE_TRY(floe_builder_new(type, 1, &b));
        floe_status st = floe_builder_append_int64(b, strtoll(text, NULL, 10));
        if (!st) st = floe_builder_finish(b, out);
        floe_builder_free(b);
        return st;
    }
    char canon[96];
    if (!canonical(text, type->id == FLOE_TYPE_DATE32 ? HT_DATE : HT_TIMESTAMP, canon, sizeof canon))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition value '%s' is not a %s", text, floe_type_id_name(type->id));
    return cast_text(canon, type, out);
}

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

floe_status scan_hive_parse(const scan_file_list *files, floe_hive_mode mode, scan_hive *h) {
    memset(h, 0, sizeof *h);
    if (mode == FLOE_HIVE_OFF || files->n == 0) return NULL;
    kv_list *pairs = floe_calloc((size_t)files->n, sizeof *pairs);
    if (!pairs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading Hive partitions");
    floe_status st = NULL;
    for (int32_t f = 0; !st && f < files->n; f++) st = path_pairs(files->v[f], &pairs[f]);
    /* Every file must have the first file's keys, and no others. */
    bool same = !st;
    for (int32_t f = 1; !st && same && f < files->n; f++) {
        same = pairs[f].n == pairs[0].n;
        const char *missing = NULL;
        for (int32_t i = 0; i < pairs[0].n && !missing; i++) {
            bool found = false;
            for (int32_t j = 0; j < pairs[f].n; j++) found |= strcmp(pairs[0].k[i], pairs[f].k[j]) == 0;
            if (!found) missing = pairs[0].k[i];
        }
        for (int32_t j = 0; j < pairs[f].n && !missing; j++) {
            bool found = false;
            for (int32_t i = 0; i < pairs[0].n; i++) found |= strcmp(pairs[0].k[i], pairs[f].k[j]) == 0;
            if (!found) missing = pairs[f].k[j];
        }
        if (missing) same = false;
        if (!same && mode == FLOE_HIVE_ON)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                            "Hive partition mismatch between file '%s' and '%s': key '%s' is not in both",
                            files->v[0], files->v[f], missing ? missing : "?");
    }
    if (!st && same && pairs[0].n > 0) {
        int32_t nk = pairs[0].n;
        h->keys = floe_calloc((size_t)nk, sizeof *h->keys);
        h->types = floe_calloc((size_t)nk, sizeof *h->types);
        h->values = floe_calloc((size_t)files->n, sizeof *h->values);
        if (!h->keys || !h->types || !h->values) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading Hive partitions");
        for (int32_t i = 0; !st && i < nk; i++) {
            if (!(h->keys[i] = floe_strdup(pairs[0].k[i]))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading Hive partitions");
            h->n_keys = i + 1;
        }
        if (!st && nk > 1) qsort(h->keys, (size_t)nk, sizeof *h->keys, cmp_cstr); /* DuckDB's order */
        h->n_files = files->n;
        int *cls = floe_calloc((size_t)nk * (size_t)files->n + 1, sizeof *cls);
        if (!cls) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading Hive partitions");
        for (int32_t f = 0; !st && f < files->n; f++) {
            if (!(h->values[f] = floe_calloc((size_t)nk, sizeof *h->values[f]))) {
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading Hive partitions");
                break;
            }
            for (int32_t i = 0; !st && i < nk; i++)
                for (int32_t j = 0; j < pairs[f].n; j++) {
                    if (strcmp(h->keys[i], pairs[f].k[j]) != 0 || !pairs[f].v[j]) continue;
                    cls[(size_t)f * (size_t)nk + (size_t)i] = pairs[f].cls[j];
                    if (!(h->values[f][i] = floe_strdup(pairs[f].v[j])))
                        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading Hive partitions");
                }
        }
        for (int32_t i = 0; !st && i < nk; i++) {
            hive_class c = HT_NULL;
            for (int32_t f = 0; f < files->n && c != HT_VARCHAR; f++) {
                hive_class v = (hive_class)cls[(size_t)f * (size_t)nk + (size_t)i];
                if (v == HT_NULL) continue;
                c = c == HT_NULL || c == v ? v : HT_VARCHAR;
            }
            floe_type_id id = c == HT_BIGINT ? FLOE_TYPE_INT64 : c == HT_DATE ? FLOE_TYPE_DATE32
                            : c == HT_TIMESTAMP ? FLOE_TYPE_TIMESTAMP_US : FLOE_TYPE_STRING;
            h->types[i] = floe_type_primitive(id);
        }
        floe_free(cls);
    }
    for (int32_t f = 0; f < files->n; f++) kv_free(&pairs[f]);
    floe_free(pairs);
    if (st) scan_hive_free(h);
    return st;
}
