/*
 * csv_read.c — CSV files into batches (see csv_read.h), and the CsvScan
 * node that streams them (the last part of this file).
 *
 * floe_csv_read reads a file whole (decompressed when it ends in .gz /
 * .zst); the CsvScan detects on a sample and reads ranges.  Then:
 *
 *  1. the dialect is sniffed on a sample: each candidate delimiter parses
 *     up to 64 records; the one giving every record the same number of
 *     fields, and the most fields, wins (ties: , | ; \t in that order);
 *  2. column types are detected on up to 20480 records, each column the
 *     first of BOOLEAN, BIGINT, DOUBLE, DATE, TIMESTAMP that every non-null
 *     sample value spells (DuckDB's candidates and order), else VARCHAR;
 *     the first record is a header when its value of some typed column is
 *     not of that type, or when every column is VARCHAR (DuckDB's rule);
 *  3. the rest is parsed by byte ranges on the thread pool.
 *
 * Quoting follows PostgreSQL's CSV reader: a quote character anywhere
 * toggles quoting (so `a"b,c"d` is the one field `ab,cd`), and inside
 * quotes the escape character before a quote (or itself) is taken
 * literally; with escape == quote that is RFC 4180's doubled quote.
 *
 * Why the ranges are cut correctly.  With escape == quote (or no escape)
 * every quote byte toggles the quoted state: an opening and a closing quote
 * toggle once each, a doubled quote inside a field toggles twice.  So
 * whether a byte is inside quotes is the parity of the quote bytes before
 * it — except between the two bytes of a doubled quote, which is never at a
 * newline.  Phase one counts, in parallel, the quote bytes and newlines of
 * each ~8 MB range; prefix sums give each range's quoted state and line
 * number at its first byte.  Phase two: each range scans from its first
 * byte with that state to the first newline outside quotes — a true record
 * boundary — and parses the records that start before the next range's
 * boundary.  Boundaries are monotonic (a range's scan passes the next
 * range's start in the same state the next range starts in), so every
 * record is parsed exactly once, by the range in which it starts, even
 * when its quoted field holds newlines across range edges.  With another
 * escape character (`\"` does not toggle) parity says nothing, and the
 * file is parsed as one range.
 */
#include "exec/scan/csv_read.h"
#include "exec/scan/csv_detect_types.h"
#include "exec/scan/csv_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "base/str.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/scan/scan_files.h"
#include "floe/exec.h"
#include "floe/memory.h"
#include "formats/compress.h"

#define SAMPLE_RECORDS 20480
#define SNIFF_RECORDS 64
#define FLUSH_ROWS 65536

typedef struct dialect {
    int delim, quote, escape; /* quote 0: none */
} dialect;

/* One parsed record.  Field i is len[i] bytes at off[i] of the input
 * (src) when its text is one run of input bytes — most fields, quoted or
 * not — or at off[i] of `text` (copied[i]) when quotes inside it, or
 * escapes, cut it into pieces that had to be joined. */
typedef struct record {
    floe_buf text;
    const uint8_t *src;
    int64_t *off, *len;
    bool *quoted, *copied;
    int32_t n, cap;
    /* Bytes that end a run: bit 0 outside quotes (delimiter, quote, CR,
     * LF), bit 1 inside (quote, escape, LF); for the dialect `key`. */
    uint8_t stop[256];
    int64_t key;
} record;

static void record_free(record *r) {
    floe_buf_free(&r->text);
    floe_free(r->off);
    floe_free(r->len);
    floe_free(r->quoted);
    floe_free(r->copied);
    memset(r, 0, sizeof *r);
}

/* Field i's bytes (valid until the record is parsed again). */
static inline const uint8_t *field_at(const record *r, int32_t i) {
    return (r->copied[i] ? r->text.data : r->src) + r->off[i];
}

static floe_status record_grow(record *r) {
    int32_t cap = r->cap ? r->cap * 2 : 16;
    int64_t *o = floe_realloc(r->off, (size_t)cap * sizeof *o);
    if (o) r->off = o;
    int64_t *l = floe_realloc(r->len, (size_t)cap * sizeof *l);
    if (l) r->len = l;
    bool *q = floe_realloc(r->quoted, (size_t)cap * sizeof *q);
    if (q) r->quoted = q;
    bool *c = floe_realloc(r->copied, (size_t)cap * sizeof *c);
    if (c) r->copied = c;
    if (!o || !l || !q || !c) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    r->cap = cap;
    return NULL;
}

/* The field being parsed: a run of input bytes [begin, end) while its
 * pieces are adjacent (direct), else the bytes appended to r->text from
 * offset `start` on. */
typedef struct field_acc {
    size_t begin, end;
    int64_t start;
    bool direct, quoted;
} field_acc;

static inline void field_reset(field_acc *fa, const record *r) {
    fa->begin = fa->end = 0;
    fa->start = (int64_t)r->text.len;
    fa->direct = true;
    fa->quoted = false;
}

/* Add input bytes [i, j) to the field. */
static inline floe_status field_add(record *r, field_acc *fa, size_t i, size_t j) {
    if (fa->direct) {
        if (fa->begin == fa->end) { /* empty so far */
            fa->begin = i;
            fa->end = j;
            return NULL;
        }
        if (fa->end == i) {
            fa->end = j;
            return NULL;
        }
        /* Not adjacent: copy what there is, then go on copying. */
        fa->direct = false;
        FLOE_TRY(floe_buf_append(&r->text, r->src + fa->begin, fa->end - fa->begin));
    }
    return floe_buf_append(&r->text, r->src + i, j - i);
}

static inline floe_status record_end_field(record *r, const field_acc *fa) {
    if (r->n == r->cap) FLOE_TRY(record_grow(r));
    int32_t k = r->n++;
    r->quoted[k] = fa->quoted;
    r->copied[k] = !fa->direct;
    if (fa->direct) {
        r->off[k] = (int64_t)fa->begin;
        r->len[k] = (int64_t)(fa->end - fa->begin);
    } else {
        r->off[k] = fa->start;
        r->len[k] = (int64_t)r->text.len - fa->start;
    }
    return NULL;
}

/* Parse the record at *pos (< n); *pos moves past its terminator and
 * *lines counts the newlines consumed.  An unterminated quote at the end
 * of the data is an error (the caller names the file and line). */
static floe_status parse_record(const dialect *d, const uint8_t *p, size_t n, size_t *pos, record *r,
                                int64_t *lines) {
    floe_buf_clear(&r->text);
    r->n = 0;
    r->src = p;
    const int q = d->quote, e = d->escape, dl = d->delim;
    int64_t key = ((int64_t)1 << 32) | (int64_t)(dl & 0xff) | (int64_t)(q & 0xff) << 8 | (int64_t)(e & 0xff) << 16;
    if (r->key != key) {
        memset(r->stop, 0, sizeof r->stop);
        r->stop[(uint8_t)dl] |= 1;
        r->stop['\n'] |= 3;
        r->stop['\r'] |= 1;
        if (q) r->stop[(uint8_t)q] |= 3;
        if (e >= 0) r->stop[(uint8_t)e] |= 2;
        r->key = key;
    }
    const uint8_t *stop = r->stop;
    size_t i = *pos;
    field_acc fa;
    field_reset(&fa, r);
    bool inq = false;
    while (i < n) {
        uint8_t c = p[i];
        if (inq) {
            if (c == q) {
                if (e == q && i + 1 < n && p[i + 1] == q) {
                    FLOE_TRY(field_add(r, &fa, i, i + 1));
                    i += 2;
                    continue;
                }
                inq = false;
                i++;
                continue;
            }
            if (e != q && c == e && i + 1 < n && (p[i + 1] == q || p[i + 1] == e)) {
                FLOE_TRY(field_add(r, &fa, i + 1, i + 2));
                i += 2;
                continue;
            }
            if (c == '\n') (*lines)++;
            /* The run of ordinary bytes at once. */
            size_t j = i + 1;
            while (j < n && !(stop[p[j]] & 2)) j++;
            FLOE_TRY(field_add(r, &fa, i, j));
            i = j;
            continue;
        }
        if (q && c == q) {
            inq = fa.quoted = true;
            i++;
            continue;
        }
        if (c == dl) {
            FLOE_TRY(record_end_field(r, &fa));
            field_reset(&fa, r);
            i++;
            continue;
        }
        if (c == '\n' || c == '\r') {
            i += (c == '\r' && i + 1 < n && p[i + 1] == '\n') ? 2 : 1;
            (*lines)++;
            *pos = i;
            return record_end_field(r, &fa);
        }
        size_t j = i + 1;
        while (j < n && !(stop[p[j]] & 1)) j++;
        FLOE_TRY(field_add(r, &fa, i, j));
        i = j;
    }
    *pos = n;
    if (inq) return floe_error(FLOE_ERR_CORRUPT, "unterminated quoted field");
    return record_end_field(r, &fa);
}

/* A blank line: one empty unquoted field (skipped with 2+ columns, as DuckDB). */
static bool record_blank(const record *r) { return r->n == 1 && r->len[0] == 0 && !r->quoted[0]; }

/* ------------------------------------------------------------- one file */

typedef struct csv_file {
    const char *path;
    uint8_t *data;
    size_t n;
    size_t start;       /* first byte after skipped lines (and header)   */
    int64_t start_line; /* line number (1-based) of the byte at start    */
    bool truncated;     /* data is a sample: the file goes on past n     */
} csv_file;

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

static floe_status load_file(const char *path, floe_fileio *io, csv_file *f) {
    floe_input *in = NULL;
    if (io) FLOE_TRY(floe_fileio_open_input(io, path, &in));
    else FLOE_TRY(floe_input_open_local(scan_local_path(path), &in));
    uint8_t *raw = NULL;
    size_t len = 0;
    floe_status st = floe_input_read_all(in, &raw, &len);
    floe_input_close(in);
    if (st) return st;
    floe_codec codec = FLOE_CODEC_NONE;
    if (ends_with(path, ".gz") || ends_with(path, ".gzip")) codec = FLOE_CODEC_GZIP;
    else if (ends_with(path, ".zst") || ends_with(path, ".zstd")) codec = FLOE_CODEC_ZSTD;
    if (codec == FLOE_CODEC_NONE) {
        f->data = raw;
        f->n = len;
        return NULL;
    }
    floe_buf out;
    floe_buf_init(&out);
    st = len ? floe_decompress_grow(codec, raw, len, &out) : NULL;
    floe_free(raw);
    if (st) {
        floe_buf_free(&out);
        return st;
    }
    f->n = out.len;
    f->data = floe_buf_detach(&out, NULL);
    return NULL;
}

/* Skip `skip` lines at the start; *line is the line number after them. */
static size_t skip_lines(const csv_file *f, int64_t skip, int64_t *line) {
    size_t i = 0;
    *line = 1;
    for (int64_t k = 0; k < skip && i < f->n; k++) {
        const uint8_t *nl = memchr(f->data + i, '\n', f->n - i);
        i = nl ? (size_t)(nl - f->data) + 1 : f->n;
        (*line)++;
    }
    return i;
}

static floe_status line_error(const char *path, int64_t line, floe_status st) {
    return floe_status_wrap(st, "'%s' line %lld", path, (long long)line);
}

/* Pick the delimiter: the candidate whose records (up to SNIFF_RECORDS)
 * all have the same number of fields, the most fields winning. */
static floe_status sniff(const csv_file *f, size_t start, const floe_csv_options *o, dialect *d) {
    d->quote = o->quote < 0 ? '"' : o->quote;
    d->escape = o->escape < 0 ? d->quote : o->escape;
    if (o->delim >= 0) {
        d->delim = o->delim;
        return NULL;
    }
    static const int cands[] = {',', '|', ';', '\t'};
    int best = ',';
    int32_t best_cols = 0;
    bool best_consistent = false;
    record r;
    memset(&r, 0, sizeof r);
    for (size_t c = 0; c < sizeof cands / sizeof cands[0]; c++) {
        dialect t = {cands[c], d->quote, d->escape};
        size_t pos = start;
        int64_t lines = 0;
        int32_t cols = -1, nrec = 0;
        bool consistent = true;
        while (pos < f->n && nrec < SNIFF_RECORDS) {
            floe_status pe = parse_record(&t, f->data, f->n, &pos, &r, &lines);
            if (pe) { /* reported when the file is parsed */
                floe_status_free(pe);
                break;
            }
            if (record_blank(&r)) continue;
            if (cols < 0) cols = r.n;
            else if (r.n != cols) consistent = false;
            nrec++;
        }
        if (cols < 0) continue;
        /* A consistent split into several fields beats everything; else
         * the most fields in the first record (then the count check
         * reports the record that differs). */
        consistent = consistent && cols > 1;
        if ((consistent && !best_consistent) || (consistent == best_consistent && cols > best_cols)) {
            best = cands[c];
            best_cols = cols;
            best_consistent = consistent;
        }
    }
    record_free(&r);
    d->delim = best;
    return NULL;
}

/* ------------------------------------------------------ the column plan */

typedef struct csv_plan {
    dialect d;
    int32_t ncols;          /* fields per record                     */
    floe_type **types;      /* per field (one reference each)        */
    char **names;
    const floe_csv_options *o;
    size_t null_len;
    bool header;            /* the first file had a header row          */
} csv_plan;

static void csv_plan_free(csv_plan *p) {
    for (int32_t i = 0; i < p->ncols; i++) {
        if (p->types) floe_type_release(p->types[i]);
        if (p->names) floe_free(p->names[i]);
    }
    floe_free(p->types);
    floe_free(p->names);
}

static bool is_null_field(const csv_plan *p, const record *r, int32_t i) {
    if (r->quoted[i] && !p->o->quoted_nulls) return false;
    return (size_t)r->len[i] == p->null_len && memcmp(field_at(r, i), p->o->nullstr, p->null_len) == 0;
}

/* Detect the header and the types on the first file's sample, filling
 * p->ncols, names and types; f->start moves past the header. */
static floe_status detect(csv_file *f, csv_plan *p) {
    const floe_csv_options *o = p->o;
    record r;
    memset(&r, 0, sizeof r);
    size_t pos = f->start;
    int64_t line = f->start_line;
    /* The sample's fields, kept as copies. */
    floe_buf text;
    floe_buf_init(&text);
    int64_t *offs = NULL, cap = 0, nvals = 0; /* offs: start, len pairs (len -1: NULL) */
    int32_t ncols = -1, nrec = 0;
    size_t after_first = f->start;
    int64_t after_first_line = line;
    floe_status st = NULL;
    while (!st && pos < f->n && nrec < SAMPLE_RECORDS) {
        int64_t rec_line = line;
        st = parse_record(&p->d, f->data, f->n, &pos, &r, &line);
        /* A sample's last record may be cut off: not judged. */
        if (f->truncated && pos >= f->n) {
            floe_status_free(st);
            st = NULL;
            break;
        }
        if (st) {
            st = line_error(f->path, rec_line, st);
            break;
        }
        if (record_blank(&r) && ncols != 1) continue;
        if (ncols < 0) ncols = o->n_types > 0 ? o->n_types : r.n;
        if (r.n != ncols) {
            st = floe_error(FLOE_ERR_CORRUPT, "'%s' line %lld: expected %d fields, found %d", f->path,
                            (long long)rec_line, ncols, r.n);
            break;
        }
        if (nrec == 0) {
            after_first = pos;
            after_first_line = line;
        }
        if (nvals + ncols > cap) {
            int64_t nc = cap ? cap * 2 : 1024;
            while (nc < nvals + ncols) nc *= 2;
            int64_t *v = floe_realloc(offs, (size_t)nc * 2 * sizeof *v);
            if (!v) {
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
                break;
            }
            offs = v;
            cap = nc;
        }
        for (int32_t i = 0; i < ncols; i++) {
            offs[2 * nvals] = (int64_t)text.len;
            offs[2 * nvals + 1] = is_null_field(p, &r, i) ? -1 : r.len[i];
            if (!st) st = floe_buf_append(&text, field_at(&r, i), (size_t)r.len[i]);
            nvals++;
        }
        nrec++;
    }
    record_free(&r);
    if (!st && ncols < 0) {
        if (o->n_types <= 0 && o->n_names <= 0)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' is empty: no columns to read (give types => [...])",
                            f->path);
        ncols = o->n_types > 0 ? o->n_types : o->n_names;
    }
    if (!st && o->n_types > 0 && ncols != o->n_types)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' has %d columns but %d types were given", f->path, ncols,
                        o->n_types);
    if (!st && o->n_names > ncols)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' has %d columns but %d names were given", f->path, ncols,
                        o->n_names);
    det_type *dt = NULL;
    if (!st && !(dt = floe_calloc((size_t)ncols + 1, sizeof *dt)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    /* Types over rows 1.. (row 0 may be the header). */
    bool detect_types = o->n_types <= 0 && o->auto_detect && !o->all_varchar;
    for (int32_t c = 0; !st && c < ncols; c++) {
        det_type t = detect_types ? T_BOOL : T_VARCHAR;
        bool any = false;
        for (int32_t row = (o->header == 0 ? 0 : 1); detect_types && row < nrec; row++) {
            int64_t k = (int64_t)row * ncols + c;
            if (offs[2 * k + 1] < 0) continue;
            any = true;
            const char *s = (const char *)text.data + offs[2 * k];
            while (t < T_VARCHAR && !floe_csv_fits(t, s, offs[2 * k + 1])) t++;
        }
        dt[c] = any ? t : T_VARCHAR;
    }
    /* The header: given, or detected as DuckDB does. */
    bool header = o->header == 1;
    if (!st && o->header < 0 && nrec > 0) {
        if (!o->auto_detect) header = false;
        else {
            bool all_varchar = true, mismatch = false, first_null = false;
            for (int32_t c = 0; c < ncols; c++) {
                if (offs[2 * c + 1] < 0) first_null = true;
                det_type t = o->n_types > 0 ? floe_csv_det_of_type(o->types[c]) : dt[c];
                if (t == T_VARCHAR) continue;
                all_varchar = false;
                if (offs[2 * c + 1] >= 0 && !floe_csv_fits(t, (const char *)text.data + offs[2 * c], offs[2 * c + 1]))
                    mismatch = true;
            }
            header = !first_null && (all_varchar || mismatch);
            /* The types were detected without row 0; with no header, row 0
             * must fit them too. */
            for (int32_t c = 0; !header && detect_types && c < ncols; c++) {
                if (offs[2 * c + 1] < 0) continue;
                const char *s = (const char *)text.data + offs[2 * c];
                while (dt[c] < T_VARCHAR && !floe_csv_fits(dt[c], s, offs[2 * c + 1])) dt[c]++;
            }
        }
    }
    if (!st && !(p->types = floe_calloc((size_t)ncols, sizeof *p->types)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    if (!st && !(p->names = floe_calloc((size_t)ncols, sizeof *p->names)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    if (!st) p->ncols = ncols;
    for (int32_t c = 0; !st && c < ncols; c++) {
        p->types[c] = floe_type_retain(o->n_types > 0 ? o->types[c] : floe_csv_det_floe_type(dt[c]));
        char buf[32];
        const char *name = NULL;
        int64_t nlen = 0;
        if (c < o->n_names) {
            name = o->names[c];
            nlen = (int64_t)strlen(name);
        } else if (header && offs[2 * c + 1] > 0) {
            name = (const char *)text.data + offs[2 * c];
            nlen = offs[2 * c + 1];
        } else {
            snprintf(buf, sizeof buf, "column%d", c);
            name = buf;
            nlen = (int64_t)strlen(buf);
        }
        p->names[c] = floe_strndup(name, (size_t)nlen);
        if (!p->names[c]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    }
    /* Duplicate names get _1, _2 ... as DuckDB does. */
    for (int32_t c = 0; !st && c < ncols; c++) {
        for (int32_t k = 1;; k++) {
            bool dup = false;
            for (int32_t j = 0; j < c && !dup; j++) dup = strcasecmp(p->names[j], p->names[c]) == 0;
            if (!dup) break;
            floe_buf b;
            floe_buf_init(&b);
            const char *base = p->names[c];
            char *us = strrchr(base, '_');
            size_t blen = (us && k > 1) ? (size_t)(us - base) : strlen(base);
            st = floe_buf_printf(&b, "%.*s_%d", (int)blen, base, k);
            if (st) break;
            floe_free(p->names[c]);
            p->names[c] = floe_strdup(floe_buf_cstr(&b));
            floe_buf_free(&b);
            if (!p->names[c]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
        }
    }
    p->header = header;
    if (!st && header) {
        f->start = after_first;
        f->start_line = after_first_line;
    }
    floe_free(dt);
    floe_free(offs);
    floe_buf_free(&text);
    return st;
}

/* ------------------------------------------------------ parsing ranges */

typedef struct csv_range {
    size_t begin, end;      /* raw bytes of the range (phase one)       */
    int64_t quotes, lines;  /* phase one: quote bytes and newlines       */
    size_t rec_begin;       /* phase two: first record boundary          */
    int64_t rec_line;       /* its line number                           */
    floe_batch **batches;
    int32_t n_batches, cap_batches;
    floe_status st;
} csv_range;

typedef struct csv_job {
    const csv_file *f;
    const csv_plan *p;
    floe_schema *schema;    /* the plan's columns (no filename)         */
    csv_range *r;
    int32_t nr;
} csv_job;

static floe_status count_range(void *ctx, size_t b, size_t e, const floe_cancel *cancel) {
    (void)cancel;
    csv_job *j = ctx;
    for (size_t k = b; k < e; k++) {
        csv_range *r = &j->r[k];
        const uint8_t *p = j->f->data;
        int64_t q = 0, l = 0;
        uint8_t qc = (uint8_t)j->p->d.quote;
        if (qc) q = floe_csv_count_byte(p + r->begin, r->end - r->begin, qc);
        l = floe_csv_count_byte(p + r->begin, r->end - r->begin, '\n');
        r->quotes = q;
        r->lines = l;
    }
    return NULL;
}

/* Cast a column of texts (column c's values, row i of `in` at record
 * rows[i], or i when rows is NULL) to the column's type; a bad value is
 * found row by row so the error names its line and column. */
static floe_status cast_texts(const csv_job *j, int32_t c, floe_array *in, const int64_t *lines, const int64_t *rows,
                              floe_array **out) {
    const csv_plan *p = j->p;
    *out = NULL;
    floe_schema *one = NULL;
    floe_field f;
    FLOE_TRY(floe_field_init(&f, "v", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    floe_status st = floe_type_struct(&f, 1, &one);
    floe_field_clear(&f);
    floe_expr *col = NULL, *cast = NULL;
    floe_batch *b = NULL;
    if (!st) st = floe_expr_column(0, &col);
    if (!st) st = floe_expr_cast(col, p->types[c], &cast); /* retains both */
    floe_expr_release(col);
    if (!st) st = floe_batch_new(one, &in, 1, in->length, &b);
    if (!st) st = floe_expr_eval(cast, b, out);
    if (st && cast && b) {
        /* Find the row. */
        floe_status_free(st);
        st = NULL;
        for (int64_t i = 0; i < in->length && !st; i++) {
            floe_array *sl = NULL, *r1 = NULL;
            floe_batch *b1 = NULL;
            st = floe_array_slice(in, i, 1, &sl);
            if (!st) st = floe_batch_new(one, &sl, 1, 1, &b1);
            if (!st) st = floe_expr_eval(cast, b1, &r1);
            floe_array_release(sl);
            floe_array_release(r1);
            floe_batch_release(b1);
            if (st)
                st = floe_status_wrap(st, "%s '%s' line %lld, column %s", p->o->what ? p->o->what : "read_csv",
                                      j->f->path, (long long)lines[rows ? rows[i] : i], p->names[c]);
        }
        if (!st) st = floe_error(FLOE_ERR_INTERNAL, "CSV cast failed on the batch but on no row");
    }
    floe_batch_release(b);
    floe_expr_release(cast);
    floe_type_release(one);
    return st;
}

static floe_status range_add_batch(csv_range *r, floe_batch *b) {
    if (r->n_batches == r->cap_batches) {
        int32_t cap = r->cap_batches ? r->cap_batches * 2 : 4;
        floe_batch **v = floe_realloc(r->batches, (size_t)cap * sizeof *v);
        if (!v) {
            floe_batch_release(b);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
        }
        r->batches = v;
        r->cap_batches = cap;
    }
    r->batches[r->n_batches++] = b;
    return NULL;
}

/* How a column's fields become values in the record loop.  The typed
 * kinds parse plain text directly (csv_values.h); a field the fast path
 * does not take keeps a zero in its slot and its text goes to the
 * column's fallback list, cast the general way when the chunk ends and
 * written into those slots — so values and error messages are the
 * cast's either way.  K_CAST columns (types without a fast path) are
 * gathered as text and cast whole, as are K_STRING columns' texts kept. */
typedef enum { K_STRING, K_CAST, K_I64, K_I32, K_F64, K_F32, K_DATE, K_TS, K_BOOL, K_DEC } col_kind;

typedef struct col_out {
    col_kind kind;
    int width;           /* bytes per value (0: bits, BOOL)              */
    floe_builder *text;  /* K_STRING / K_CAST: every value; else fallbacks */
    floe_buffer *vals, *valid;
    int64_t nulls;
    int64_t *frow;       /* typed: the rows of the fallback texts          */
    int64_t nf;
} col_out;

static col_kind kind_of(const floe_type *t, int *width) {
    *width = t->byte_width;
    switch (t->id) {
    case FLOE_TYPE_STRING: return K_STRING;
    case FLOE_TYPE_INT64: return K_I64;
    case FLOE_TYPE_INT32: return K_I32;
    case FLOE_TYPE_FLOAT64: return K_F64;
    case FLOE_TYPE_FLOAT32: return K_F32;
    case FLOE_TYPE_DATE32: return K_DATE;
    case FLOE_TYPE_TIMESTAMP_US: return K_TS;
    case FLOE_TYPE_BOOL: *width = 0; return K_BOOL;
    case FLOE_TYPE_DECIMAL128: return K_DEC;
    default: return K_CAST;
    }
}

/* Parse field text s[0, n) of a typed column into row `row`'s slot. */
static bool fast_value(const csv_plan *p, int32_t c, col_out *o, int64_t row, const char *s, size_t n) {
    uint8_t *v = o->vals->data;
    switch (o->kind) {
    case K_I64: return floe_csv_fast_int64(s, n, (int64_t *)v + row);
    case K_I32: {
        int64_t x;
        if (!floe_csv_fast_int64(s, n, &x) || x < INT32_MIN || x > INT32_MAX) return false;
        ((int32_t *)v)[row] = (int32_t)x;
        return true;
    }
    case K_F64: return floe_csv_fast_double(s, n, (double *)v + row);
    case K_F32: {
        double d;
        if (!floe_csv_fast_double(s, n, &d)) return false;
        ((float *)v)[row] = (float)d;
        return true;
    }
    case K_DATE: return floe_csv_fast_date(s, n, (int32_t *)v + row);
    case K_TS: return floe_csv_fast_timestamp(s, n, (int64_t *)v + row);
    case K_BOOL: {
        bool b;
        if (!floe_csv_fast_bool(s, n, &b)) return false;
        if (b) floe_bit_set(v, row);
        return true;
    }
    case K_DEC:
        return floe_csv_fast_decimal(s, n, p->types[c]->precision, p->types[c]->scale, (floe_decimal128 *)v + row);
    default: return false;
    }
}

/* Write the cast fallback values into their slots. */
static floe_status patch_fallbacks(col_out *o, const floe_array *res) {
    uint8_t *v = o->vals->data;
    for (int64_t i = 0; i < o->nf; i++) {
        int64_t r = o->frow[i];
        if (floe_array_is_null(res, i)) return floe_error(FLOE_ERR_INTERNAL, "CSV: a cast of text gave NULL");
        switch (o->kind) {
        case K_I64:
        case K_TS: ((int64_t *)v)[r] = floe_array_get_int64(res, i); break;
        case K_I32:
        case K_DATE: ((int32_t *)v)[r] = floe_array_get_int32(res, i); break;
        case K_F64: ((double *)v)[r] = floe_array_get_double(res, i); break;
        case K_F32: ((float *)v)[r] = floe_array_get_float(res, i); break;
        case K_BOOL: floe_bit_put(v, r, floe_array_get_bool(res, i)); break;
        case K_DEC: ((floe_decimal128 *)v)[r] = floe_array_get_decimal(res, i); break;
        default: return floe_error(FLOE_ERR_INTERNAL, "CSV: fallback values for an untyped column");
        }
    }
    return NULL;
}

static void col_out_clear(col_out *o) {
    floe_builder_free(o->text);
    floe_buffer_release(o->vals);
    floe_buffer_release(o->valid);
    floe_free(o->frow);
}

/* Column c of the chunk as an array of its type. */
static floe_status finish_column(const csv_job *j, int32_t c, col_out *o, const int64_t *lines, int64_t rows,
                                 floe_array **out) {
    floe_type *t = j->p->types[c];
    floe_array *texts = NULL, *res = NULL;
    if (o->kind == K_STRING) return floe_builder_finish(o->text, out);
    FLOE_TRY(floe_builder_finish(o->text, &texts));
    if (o->kind == K_CAST) {
        floe_status st = cast_texts(j, c, texts, lines, NULL, out);
        floe_array_release(texts);
        return st;
    }
    floe_status st = o->nf ? cast_texts(j, c, texts, lines, o->frow, &res) : NULL;
    floe_array_release(texts);
    if (!st && res) st = patch_fallbacks(o, res);
    floe_array_release(res);
    int64_t bytes = o->width ? rows * o->width : (rows + 7) / 8;
    if (!st) st = floe_buffer_resize(o->vals, bytes);
    if (!st && o->nulls) st = floe_buffer_resize(o->valid, (rows + 7) / 8);
    if (!st) st = floe_array_new(t, rows, 0, o->nulls, o->nulls ? o->valid : NULL, &o->vals, 1, NULL, 0, out);
    return st;
}

/* Parse records starting in [*pos, end) — at most FLUSH_ROWS of them —
 * into one batch (*out; NULL when none were left); *pos and *line move on. */
static floe_status parse_chunk(const csv_job *j, size_t *pos_io, size_t end, int64_t *line_io, floe_batch **out) {
    const csv_plan *p = j->p;
    const csv_file *f = j->f;
    *out = NULL;
    floe_status st = NULL;
    record r;
    memset(&r, 0, sizeof r);
    int64_t rows = 0, line = *line_io;
    size_t pos = *pos_io;
    /* Each record takes a byte at least: no more rows than bytes. */
    int64_t cap = end - pos < (size_t)FLUSH_ROWS ? (int64_t)(end - pos) : FLUSH_ROWS;
    col_out *co = floe_calloc((size_t)p->ncols + 1, sizeof *co);
    floe_array **cols = floe_calloc((size_t)p->ncols + 1, sizeof *cols);
    int64_t *lines = floe_malloc((size_t)cap * sizeof *lines + 1);
    if (!co || !cols || !lines) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    for (int32_t c = 0; !st && c < p->ncols; c++) {
        col_out *o = &co[c];
        o->kind = kind_of(p->types[c], &o->width);
        st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), o->kind <= K_CAST ? cap : 16, &o->text);
        if (!st && o->kind > K_CAST) st = floe_buffer_new(o->width ? cap * o->width : (cap + 7) / 8, &o->vals);
        if (!st && o->kind > K_CAST) st = floe_buffer_new((cap + 7) / 8, &o->valid);
    }
    while (!st && pos < end && rows < cap) {
        int64_t rec_line = line;
        st = parse_record(&p->d, f->data, f->n, &pos, &r, &line);
        if (st) {
            st = line_error(f->path, rec_line, st);
            break;
        }
        if (record_blank(&r) && p->ncols != 1) continue;
        if (r.n != p->ncols) {
            st = floe_error(FLOE_ERR_CORRUPT, "'%s' line %lld: expected %d fields, found %d", f->path,
                            (long long)rec_line, p->ncols, r.n);
            break;
        }
        for (int32_t c = 0; !st && c < p->ncols; c++) {
            col_out *o = &co[c];
            bool typed = o->kind > K_CAST;
            if (is_null_field(p, &r, c)) {
                if (typed) o->nulls++;
                else st = floe_builder_append_null(o->text);
                continue;
            }
            const uint8_t *s = field_at(&r, c);
            if (typed) {
                floe_bit_set(o->valid->data, rows);
                if (fast_value(p, c, o, rows, (const char *)s, (size_t)r.len[c])) continue;
            }
            size_t bad = 0;
            if (!floe_utf8_valid(s, (size_t)r.len[c], &bad)) {
                st = floe_error(FLOE_ERR_CORRUPT, "'%s' line %lld, column %s: invalid UTF-8 byte 0x%02x",
                                f->path, (long long)rec_line, p->names[c], s[bad]);
                break;
            }
            if (typed) {
                if (!o->frow && !(o->frow = floe_malloc((size_t)cap * sizeof *o->frow))) {
                    st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
                    break;
                }
                o->frow[o->nf++] = rows;
            }
            st = floe_builder_append_binary(o->text, s, r.len[c]);
        }
        if (!st) lines[rows++] = rec_line;
    }
    for (int32_t c = 0; !st && rows > 0 && c < p->ncols; c++) st = finish_column(j, c, &co[c], lines, rows, &cols[c]);
    if (!st && rows > 0) st = floe_batch_new(j->schema, cols, p->ncols, rows, out);
    for (int32_t c = 0; co && cols && c < p->ncols; c++) {
        col_out_clear(&co[c]);
        floe_array_release(cols[c]);
    }
    floe_free(co);
    floe_free(cols);
    floe_free(lines);
    record_free(&r);
    if (!st) {
        *pos_io = pos;
        *line_io = line;
    }
    return st;
}

/* Parse the records starting in [begin, end) into batches. */
static floe_status parse_span(const csv_job *j, csv_range *rg, size_t begin, size_t end, int64_t line) {
    size_t pos = begin;
    while (pos < end) {
        floe_batch *b = NULL;
        FLOE_TRY(parse_chunk(j, &pos, end, &line, &b));
        if (b) FLOE_TRY(range_add_batch(rg, b));
    }
    return NULL;
}

static floe_status parse_ranges(void *ctx, size_t b, size_t e, const floe_cancel *cancel) {
    csv_job *j = ctx;
    for (size_t k = b; k < e; k++) {
        if ((cancel && floe_cancel_is_set(cancel))) return NULL;
        csv_range *r = &j->r[k];
        size_t end = k + 1 < (size_t)j->nr ? j->r[k + 1].rec_begin : j->f->n;
        r->st = parse_span(j, r, r->rec_begin, end, r->rec_line);
        if (r->st) return floe_error(FLOE_ERR_CANCELLED, "CSV range failed");
    }
    return NULL;
}

/* Parse f (from f->start) into batches appended to *all. */
static floe_status parse_file(csv_file *f, const csv_plan *p, floe_schema *schema, floe_threadpool *pool,
                              floe_batch ***all, int32_t *n_all, int32_t *cap_all) {
    int64_t rb = p->o->range_bytes > 0 ? p->o->range_bytes : (int64_t)8 << 20;
    size_t span = f->n - f->start;
    bool parity_ok = p->d.quote == 0 || p->d.escape == p->d.quote;
    int32_t nr = (parity_ok && span > (size_t)rb) ? (int32_t)((span + (size_t)rb - 1) / (size_t)rb) : 1;
    csv_range *r = floe_calloc((size_t)nr, sizeof *r);
    if (!r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    csv_job job = {f, p, schema, r, nr};
    for (int32_t i = 0; i < nr; i++) {
        r[i].begin = f->start + (size_t)i * (size_t)rb;
        r[i].end = i + 1 < nr ? r[i].begin + (size_t)rb : f->n;
    }
    floe_status st = NULL;
    if (nr > 1) st = floe_parallel_for(pool, (size_t)nr, 1, count_range, &job, NULL);
    /* Each range's first record boundary: the first newline outside quotes
     * at or after its first byte, found with the quote parity before it. */
    int64_t quotes = 0, line = f->start_line;
    for (int32_t i = 0; !st && i < nr; i++) {
        if (i == 0) {
            r[i].rec_begin = f->start;
            r[i].rec_line = f->start_line;
        } else {
            bool inq = (quotes & 1) != 0;
            int64_t l = line;
            size_t k = r[i].begin;
            const uint8_t qc = (uint8_t)p->d.quote;
            for (; k < f->n; k++) {
                uint8_t c = f->data[k];
                if (qc && c == qc) inq = !inq;
                else if (c == '\n') {
                    l++;
                    if (!inq) {
                        k++;
                        break;
                    }
                }
            }
            /* Never before the previous range's boundary (monotonic). */
            if (k < r[i - 1].rec_begin) k = r[i - 1].rec_begin, l = r[i - 1].rec_line;
            r[i].rec_begin = k;
            r[i].rec_line = l;
        }
        quotes += r[i].quotes;
        line += r[i].lines;
    }
    if (!st) st = floe_parallel_for(pool, (size_t)nr, 1, parse_ranges, &job, NULL);
    for (int32_t i = 0; i < nr; i++) {
        if (r[i].st) {
            floe_status_free(st);
            st = r[i].st;
            r[i].st = NULL;
            for (int32_t k = i + 1; k < nr; k++) floe_status_free(r[k].st);
            break;
        }
    }
    for (int32_t i = 0; i < nr; i++) {
        for (int32_t k = 0; k < r[i].n_batches; k++) {
            if (!st && *n_all == *cap_all) {
                int32_t cap = *cap_all ? *cap_all * 2 : 16;
                floe_batch **v = floe_realloc(*all, (size_t)cap * sizeof *v);
                if (!v) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
                else *all = v, *cap_all = cap;
            }
            if (!st) (*all)[(*n_all)++] = r[i].batches[k];
            else floe_batch_release(r[i].batches[k]);
        }
        floe_free(r[i].batches);
    }
    floe_free(r);
    return st;
}

/* A batch with a constant `filename` column added. */
static floe_status add_filename(floe_batch *b, const char *path, floe_schema *schema, floe_batch **out) {
    floe_builder *bl = NULL;
    FLOE_TRY(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), b->num_rows, &bl));
    floe_status st = NULL;
    size_t n = strlen(path);
    for (int64_t i = 0; i < b->num_rows && !st; i++) st = floe_builder_append_binary(bl, path, (int64_t)n);
    floe_array *fa = NULL;
    if (!st) st = floe_builder_finish(bl, &fa);
    floe_builder_free(bl);
    floe_array **cols = NULL;
    if (!st && !(cols = floe_malloc(((size_t)b->num_columns + 1) * sizeof *cols)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    if (!st) {
        memcpy(cols, b->columns, (size_t)b->num_columns * sizeof *cols);
        cols[b->num_columns] = fa;
        st = floe_batch_new(schema, cols, b->num_columns + 1, b->num_rows, out);
    }
    floe_free(cols);
    floe_array_release(fa);
    return st;
}

floe_status floe_csv_read(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                          const floe_csv_options *o, floe_schema **schema_out, floe_batch ***batches,
                          int32_t *n_batches) {
    *schema_out = NULL;
    *batches = NULL;
    *n_batches = 0;
    scan_file_list files;
    memset(&files, 0, sizeof files);
    floe_fileio *own_io = NULL, *use_io = io;
    floe_status st = NULL;
    for (int32_t i = 0; i < n_patterns && !st; i++) st = scan_expand_pattern(patterns[i], &use_io, &files);
    if (use_io != io) own_io = use_io;
    csv_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.o = o;
    plan.null_len = strlen(o->nullstr ? o->nullstr : "");
    floe_schema *schema = NULL, *full = NULL;
    floe_batch **all = NULL;
    int32_t n_all = 0, cap_all = 0;
    floe_threadpool *pool = NULL;
    if (!st) st = floe_threadpool_default(&pool);
    for (int32_t fi = 0; fi < files.n && !st; fi++) {
        csv_file f;
        memset(&f, 0, sizeof f);
        f.path = files.v[fi];
        st = load_file(f.path, use_io, &f);
        if (!st) f.start = skip_lines(&f, o->skip, &f.start_line);
        if (!st && fi == 0) {
            st = sniff(&f, f.start, o, &plan.d);
            if (!st && plan.d.delim == plan.d.quote && plan.d.quote)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "the CSV delimiter and quote must differ");
            if (!st) st = detect(&f, &plan);
            floe_field *fields = NULL;
            if (!st && !(fields = floe_calloc((size_t)plan.ncols + 1, sizeof *fields)))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
            for (int32_t c = 0; !st && c < plan.ncols; c++)
                st = floe_field_init(&fields[c], plan.names[c], plan.types[c], true, -1); /* retains */
            if (!st) st = floe_type_struct(fields, plan.ncols, &schema);
            if (!st && o->filename) {
                st = floe_field_init(&fields[plan.ncols], "filename", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
                if (!st) st = floe_type_struct(fields, plan.ncols + 1, &full);
            }
            for (int32_t c = 0; fields && c <= plan.ncols; c++) floe_field_clear(&fields[c]);
            floe_free(fields);
        } else if (!st && plan.header && f.start < f.n) {
            /* Later files: when the first file had a header, so do they. */
            record r;
            memset(&r, 0, sizeof r);
            int64_t l = f.start_line;
            st = parse_record(&plan.d, f.data, f.n, &f.start, &r, &l);
            f.start_line = l;
            record_free(&r);
            if (st) st = line_error(f.path, l, st);
        }
        int32_t first = n_all;
        if (!st) st = parse_file(&f, &plan, schema, pool, &all, &n_all, &cap_all);
        for (int32_t k = first; !st && full && k < n_all; k++) {
            floe_batch *nb = NULL;
            st = add_filename(all[k], f.path, full, &nb);
            if (!st) {
                floe_batch_release(all[k]);
                all[k] = nb;
            }
        }
        floe_free(f.data);
    }
    if (!st && !schema) st = floe_error(FLOE_ERR_NOT_FOUND, "no CSV files to read");
    csv_plan_free(&plan);
    scan_file_list_free(&files);
    if (own_io) floe_fileio_free(own_io);
    if (st) {
        for (int32_t k = 0; k < n_all; k++) floe_batch_release(all[k]);
        floe_free(all);
        floe_type_release(schema);
        floe_type_release(full);
        return st;
    }
    if (full) {
        floe_type_release(schema);
        schema = full;
    }
    *schema_out = schema;
    *batches = all;
    *n_batches = n_all;
    return NULL;
}

/* ============================================================ CsvScan
 *
 * The streamed scan: detection runs at plan time on a sample of the first
 * file (its first SAMPLE_BYTES), and the plan holds only the dialect, the
 * columns and the tasks — byte ranges of the files, each with the quote
 * parity and line number at its first byte (counted at plan time, in
 * parallel, by reading the ranges in pieces; nothing is held whole).  A
 * partition's stream reads its tasks one at a time: a range's bytes, plus
 * the bytes up to the first newline outside quotes after its end, and
 * parses the records that start after its first such newline (see the
 * top of this file for why the cuts agree between neighbours).  A
 * compressed file, or a dialect where parity says nothing, is one task,
 * decompressed whole when it runs. */

#define SAMPLE_BYTES ((size_t)8 << 20)

extern const floe_plan_vtable floe_csv_scan_vt;
#define EXTEND_BYTES ((size_t)64 << 10)

typedef struct csv_task {
    char *path;
    int64_t begin, end; /* raw bytes; end -1: the whole file (one task)      */
    int64_t line;       /* line number of the byte at begin                   */
    bool inq;           /* inside quotes at begin                             */
} csv_task;

typedef struct csv_scan_plan {
    floe_plan head;
    csv_plan cp;          /* dialect, columns; cp.o points at opts         */
    floe_csv_options opts; /* nullstr, what owned; names/types unused      */
    floe_schema *data;    /* the parsed columns (no filename)               */
    csv_task *tasks;
    int32_t n_tasks;
    int32_t *first;       /* partition i: tasks [first[i], first[i + 1])    */
} csv_scan_plan;

static bool is_compressed(const char *path) {
    return ends_with(path, ".gz") || ends_with(path, ".gzip") || ends_with(path, ".zst") || ends_with(path, ".zstd");
}

static floe_status open_input(const char *path, floe_fileio *io, floe_input **in) {
    if (io) return floe_fileio_open_input(io, path, in);
    return floe_input_open_local(scan_local_path(path), in);
}

static void csv_scan_free(floe_plan *p_) {
    csv_scan_plan *p = (csv_scan_plan *)p_;
    csv_plan_free(&p->cp);
    floe_free((char *)p->opts.nullstr);
    floe_free((char *)p->opts.what);
    floe_type_release(p->data);
    for (int32_t i = 0; i < p->n_tasks; i++) floe_free(p->tasks[i].path);
    floe_free(p->tasks);
    floe_free(p->first);
}

/* The node from its parts; takes the tasks (and their paths) and the
 * names/types in cp either way. */
static floe_status csv_scan_new(const csv_plan *cp, const floe_csv_options *o, csv_task *tasks, int32_t n_tasks,
                                int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    csv_scan_plan *p = floe_calloc(1, sizeof *p);
    floe_status st = NULL;
    floe_schema *full = NULL;
    floe_field *fields = p ? floe_calloc((size_t)cp->ncols + 1, sizeof *fields) : NULL;
    if (!p || !fields) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CsvScan node");
    if (!st) {
        p->cp = *cp;
        p->cp.o = &p->opts;
        p->opts = *o;
        p->opts.names = NULL, p->opts.n_names = 0, p->opts.types = NULL, p->opts.n_types = 0;
        p->opts.nullstr = floe_strdup(o->nullstr ? o->nullstr : "");
        p->opts.what = o->what ? floe_strdup(o->what) : NULL;
        p->cp.null_len = strlen(o->nullstr ? o->nullstr : "");
        p->tasks = tasks;
        p->n_tasks = n_tasks;
        tasks = NULL;
        if (!p->opts.nullstr || (o->what && !p->opts.what))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CsvScan node");
    } else {
        csv_plan c = *cp;
        csv_plan_free(&c);
    }
    for (int32_t i = 0; tasks && i < n_tasks; i++) floe_free(tasks[i].path);
    floe_free(tasks);
    if (n_partitions < 1) n_partitions = 1;
    if (!st && n_partitions > n_tasks && n_tasks > 0) n_partitions = n_tasks;
    if (!st && !(p->first = floe_calloc((size_t)n_partitions + 1, sizeof *p->first)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CsvScan node");
    for (int32_t i = 0; !st && i <= n_partitions; i++)
        p->first[i] = (int32_t)((int64_t)p->n_tasks * i / n_partitions);
    for (int32_t c = 0; !st && c < p->cp.ncols; c++)
        st = floe_field_init(&fields[c], p->cp.names[c], p->cp.types[c], true, -1);
    if (!st) st = floe_type_struct(fields, p->cp.ncols, &p->data);
    if (!st && p->opts.filename) {
        st = floe_field_init(&fields[p->cp.ncols], "filename", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
        if (!st) st = floe_type_struct(fields, p->cp.ncols + 1, &full);
    }
    for (int32_t c = 0; fields && c <= cp->ncols; c++) floe_field_clear(&fields[c]);
    floe_free(fields);
    if (!p) return st;
    floe_status init = floe_exec_plan_init(&p->head, &floe_csv_scan_vt, full ? full : p->data, n_partitions, NULL, 0);
    if (!st) st = init;
    else floe_status_free(init);
    floe_type_release(full);
    if (st) {
        if (p->head.vt) floe_plan_release(&p->head);
        else {
            csv_scan_free(&p->head);
            floe_free(p);
        }
        return st;
    }
    *out = &p->head;
    return NULL;
}

/* ------------------------------------------------------------ streams */

typedef struct csv_stream {
    floe_stream base;
    const csv_scan_plan *p;
    const floe_cancel *cancel;
    floe_fileio *io;      /* for remote files; made on first need */
    int32_t next_task, end_task;
    csv_file f;           /* the current task's bytes (data NULL: none)     */
    size_t pos, stop;     /* records starting in [pos, stop) are left      */
    int64_t line;
} csv_stream;

/* Read [off, off + len) of `in` onto b. */
static floe_status read_piece(floe_input *in, uint64_t off, size_t len, floe_buf *b) {
    FLOE_TRY(floe_buf_reserve(b, len + 1));
    FLOE_TRY(floe_input_read(in, off, len, b->data + b->len));
    b->len += len;
    return NULL;
}

/* Load task t: its bytes in s->f and the span of records it owns. */
static floe_status load_task(csv_stream *s, const csv_task *t) {
    const csv_scan_plan *p = s->p;
    csv_file *f = &s->f;
    memset(f, 0, sizeof *f);
    f->path = t->path;
    floe_fileio *io = NULL;
    if (scan_is_remote(t->path)) {
        if (!s->io) FLOE_TRY(floe_fileio_new(NULL, 0, &s->io));
        io = s->io;
    }
    if (t->end < 0) { /* the whole file: maybe compressed */
        FLOE_TRY(load_file(t->path, io, f));
        s->pos = 0;
        s->stop = f->n;
        s->line = 1;
    } else {
        floe_input *in = NULL;
        FLOE_TRY(open_input(t->path, io, &in));
        floe_buf b;
        floe_buf_init(&b);
        uint64_t size = in->size;
        uint64_t end = (uint64_t)t->end < size ? (uint64_t)t->end : size;
        floe_status st = (uint64_t)t->begin < end ? read_piece(in, (uint64_t)t->begin, (size_t)(end - (uint64_t)t->begin), &b) : NULL;
        /* The quoted state at end, then on to the first newline outside
         * quotes at or after it (the next task's first boundary). */
        const uint8_t qc = (uint8_t)p->cp.d.quote;
        bool inq = t->inq;
        if (qc) inq ^= (floe_csv_count_byte(b.data, b.len, qc) & 1) != 0;
        size_t k = b.len, stop = 0;
        bool found = false;
        uint64_t at = end;
        while (!st && !found) {
            for (; k < b.len; k++) {
                uint8_t c = b.data[k];
                if (qc && c == qc) inq = !inq;
                else if (c == '\n' && !inq) {
                    found = true;
                    stop = k + 1;
                    break;
                }
            }
            if (found || at >= size) break;
            size_t len = size - at < EXTEND_BYTES ? (size_t)(size - at) : EXTEND_BYTES;
            st = read_piece(in, at, len, &b);
            at += len;
        }
        if (!found) stop = b.len;
        floe_input_close(in);
        if (st) {
            floe_buf_free(&b);
            return st;
        }
        f->n = stop;
        f->data = b.len ? floe_buf_detach(&b, NULL) : NULL;
        floe_buf_free(&b);
        s->stop = stop;
        s->pos = 0;
        s->line = t->line;
        if (t->begin > 0) {
            /* The first newline outside quotes from begin: a record starts
             * after it (none: the span is empty). */
            inq = t->inq;
            size_t i = 0;
            for (; i < f->n; i++) {
                uint8_t c = f->data[i];
                if (qc && c == qc) inq = !inq;
                else if (c == '\n') {
                    s->line++;
                    if (!inq) break;
                }
            }
            s->pos = i < f->n ? i + 1 : f->n;
        }
    }
    if (t->begin == 0) {
        /* The file's start: skipped lines, then its header. */
        int64_t l = 1;
        s->pos = skip_lines(f, p->opts.skip, &l);
        s->line = l;
        if (p->cp.header && s->pos < s->stop) {
            record r;
            memset(&r, 0, sizeof r);
            floe_status st = parse_record(&p->cp.d, f->data, f->n, &s->pos, &r, &s->line);
            record_free(&r);
            if (st) return line_error(f->path, l, st);
        }
    }
    return NULL;
}

static floe_status csv_stream_next(floe_stream *s_, floe_batch **out) {
    csv_stream *s = (csv_stream *)s_;
    *out = NULL;
    for (;;) {
        FLOE_TRY(floe_cancel_check(s->cancel, "CsvScan"));
        if (s->f.data && s->pos < s->stop) {
            csv_job j = {&s->f, &s->p->cp, s->p->data, NULL, 0};
            floe_batch *b = NULL;
            FLOE_TRY(parse_chunk(&j, &s->pos, s->stop, &s->line, &b));
            if (b && s->p->opts.filename) {
                floe_batch *nb = NULL;
                floe_status st = add_filename(b, s->f.path, s->p->head.schema, &nb);
                floe_batch_release(b);
                FLOE_TRY(st);
                b = nb;
            }
            if (b) {
                *out = b;
                return NULL;
            }
            continue;
        }
        floe_free(s->f.data);
        s->f.data = NULL;
        if (s->next_task >= s->end_task) return NULL;
        FLOE_TRY(load_task(s, &s->p->tasks[s->next_task++]));
    }
}

static void csv_stream_close(floe_stream *s_) {
    csv_stream *s = (csv_stream *)s_;
    floe_free(s->f.data);
    if (s->io) floe_fileio_free(s->io);
    floe_free(s);
}

static floe_status csv_scan_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                    floe_stream **out) {
    const csv_scan_plan *p = (const csv_scan_plan *)p_;
    csv_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a CsvScan stream");
    s->base.next = csv_stream_next;
    s->base.close = csv_stream_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->next_task = p->first[partition];
    s->end_task = p->first[partition + 1];
    *out = &s->base;
    return NULL;
}

/* ---------------------------------------------------------------- codec */

static floe_status csv_scan_encode(const floe_plan *p_, floe_buf *out) {
    const csv_scan_plan *p = (const csv_scan_plan *)p_;
    FLOE_TRY(floe_codec_put_type(out, p->data));
    FLOE_TRY(floe_codec_put_i64(out, p->cp.d.delim));
    FLOE_TRY(floe_codec_put_i64(out, p->cp.d.quote));
    FLOE_TRY(floe_codec_put_i64(out, p->cp.d.escape));
    FLOE_TRY(floe_codec_put_i64(out, p->cp.header));
    FLOE_TRY(floe_codec_put_str(out, p->opts.nullstr));
    FLOE_TRY(floe_codec_put_i64(out, p->opts.quoted_nulls));
    FLOE_TRY(floe_codec_put_i64(out, p->opts.skip));
    FLOE_TRY(floe_codec_put_i64(out, p->opts.filename));
    FLOE_TRY(floe_codec_put_str(out, p->opts.what));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    FLOE_TRY(floe_codec_put_i64(out, p->n_tasks));
    for (int32_t i = 0; i < p->n_tasks; i++) {
        const csv_task *t = &p->tasks[i];
        FLOE_TRY(floe_codec_put_str(out, t->path));
        FLOE_TRY(floe_codec_put_i64(out, t->begin));
        FLOE_TRY(floe_codec_put_i64(out, t->end));
        FLOE_TRY(floe_codec_put_i64(out, t->line));
        FLOE_TRY(floe_codec_put_i64(out, t->inq));
    }
    return NULL;
}

static floe_status get_ranged(floe_reader *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
    FLOE_TRY(floe_codec_get_i64(r, v));
    if (*v < lo || *v > hi) return floe_error(FLOE_ERR_CORRUPT, "CsvScan: %s %lld is impossible", what, (long long)*v);
    return NULL;
}

static floe_status csv_scan_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "CsvScan with %d children", n_children);
    floe_type *data = NULL;
    FLOE_TRY(floe_codec_get_type(r, &data));
    csv_plan cp;
    memset(&cp, 0, sizeof cp);
    floe_csv_options o;
    floe_csv_options_init(&o);
    char *nullstr = NULL, *what = NULL;
    int64_t v[4], np = 0, nt = 0, qn = 0, fname = 0;
    csv_task *tasks = NULL;
    int32_t n_tasks = 0;
    floe_status st = data->id == FLOE_TYPE_STRUCT ? NULL : floe_error(FLOE_ERR_CORRUPT, "CsvScan: columns not a struct");
    for (int i = 0; !st && i < 3; i++) st = get_ranged(r, 0, 255, "dialect byte", &v[i]);
    if (!st) st = get_ranged(r, 0, 1, "header flag", &v[3]);
    if (!st) st = floe_codec_get_str(r, &nullstr);
    if (!st) st = get_ranged(r, 0, 1, "quoted_nulls", &qn);
    if (!st) st = get_ranged(r, 0, INT64_MAX, "skip", &o.skip);
    if (!st) st = get_ranged(r, 0, 1, "filename flag", &fname);
    if (!st) st = floe_codec_get_str(r, &what);
    if (!st) st = get_ranged(r, 1, INT32_MAX, "partition count", &np);
    if (!st) st = get_ranged(r, 0, INT32_MAX, "task count", &nt);
    if (!st && nt > 0 && !(tasks = floe_calloc((size_t)nt, sizeof *tasks)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a CsvScan node");
    for (; !st && n_tasks < nt; n_tasks++) {
        csv_task *t = &tasks[n_tasks];
        int64_t inq = 0;
        st = floe_codec_get_str(r, &t->path);
        if (!st && !t->path) st = floe_error(FLOE_ERR_CORRUPT, "CsvScan: a task without a path");
        if (!st) st = get_ranged(r, 0, INT64_MAX, "range start", &t->begin);
        if (!st) st = get_ranged(r, -1, INT64_MAX, "range end", &t->end);
        if (!st) st = get_ranged(r, 1, INT64_MAX, "line", &t->line);
        if (!st) st = get_ranged(r, 0, 1, "quote state", &inq);
        t->inq = inq != 0;
        if (st) {
            floe_free(t->path);
            break;
        }
    }
    if (!st) {
        cp.d.delim = (int)v[0], cp.d.quote = (int)v[1], cp.d.escape = (int)v[2];
        cp.header = v[3] != 0;
        cp.ncols = data->n_children;
        cp.types = floe_calloc((size_t)cp.ncols + 1, sizeof *cp.types);
        cp.names = floe_calloc((size_t)cp.ncols + 1, sizeof *cp.names);
        if (!cp.types || !cp.names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a CsvScan node");
        for (int32_t c = 0; !st && c < cp.ncols; c++) {
            cp.types[c] = floe_type_retain(data->children[c].type);
            if (!(cp.names[c] = floe_strdup(data->children[c].name)))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a CsvScan node");
        }
    }
    floe_type_release(data);
    o.nullstr = nullstr ? nullstr : "";
    o.quoted_nulls = qn != 0;
    o.filename = fname != 0;
    o.what = what;
    if (!st) st = csv_scan_new(&cp, &o, tasks, n_tasks, (int32_t)np, out);
    else {
        csv_plan_free(&cp);
        for (int32_t i = 0; i < n_tasks; i++) floe_free(tasks[i].path);
        floe_free(tasks);
    }
    floe_free(nullstr);
    floe_free(what);
    return st;
}

static floe_status csv_scan_explain(const floe_plan *p_, floe_buf *out) {
    const csv_scan_plan *p = (const csv_scan_plan *)p_;
    int32_t files = 0;
    for (int32_t i = 0; i < p->n_tasks; i++) files += i == 0 || strcmp(p->tasks[i].path, p->tasks[i - 1].path) != 0;
    return floe_buf_printf(out, "files=%d, ranges=%d, partitions=%d", files, p->n_tasks, p->head.n_partitions);
}

static floe_status csv_scan_visit(const floe_plan *p_, floe_path_visit visit, void *arg) {
    const csv_scan_plan *p = (const csv_scan_plan *)p_;
    for (int32_t i = 0; i < p->n_tasks; i++)
        if (i == 0 || strcmp(p->tasks[i].path, p->tasks[i - 1].path) != 0) FLOE_TRY(visit(arg, p->tasks[i].path));
    return NULL;
}

const floe_plan_vtable floe_csv_scan_vt = {
    .name = "CsvScan",
    .execute = csv_scan_execute,
    .encode_parts = csv_scan_encode,
    .decode_parts = csv_scan_decode,
    .explain_parts = csv_scan_explain,
    .free_parts = csv_scan_free,
    .local_paths = csv_scan_visit,
};

/* ------------------------------------------------------------ planning */

typedef struct count_job {
    const char *path;
    floe_fileio *io;
    uint8_t quote;
    int64_t rb, size;
    int64_t *quotes, *lines; /* per range */
} count_job;

/* Count the quote bytes and newlines of ranges [b, e), reading each in
 * pieces of at most 1 MB. */
static floe_status count_file_ranges(void *ctx, size_t b, size_t e, const floe_cancel *cancel) {
    (void)cancel;
    count_job *j = ctx;
    floe_input *in = NULL;
    FLOE_TRY(open_input(j->path, j->io, &in));
    size_t cap = (size_t)1 << 20;
    uint8_t *buf = floe_malloc(cap);
    floe_status st = buf ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    for (size_t k = b; !st && k < e; k++) {
        int64_t from = (int64_t)k * j->rb, to = from + j->rb < j->size ? from + j->rb : j->size;
        int64_t q = 0, l = 0;
        for (int64_t at = from; !st && at < to;) {
            size_t len = (size_t)(to - at) < cap ? (size_t)(to - at) : cap;
            st = floe_input_read(in, (uint64_t)at, len, buf);
            if (!st) {
                if (j->quote) q += floe_csv_count_byte(buf, len, j->quote);
                l += floe_csv_count_byte(buf, len, '\n');
            }
            at += (int64_t)len;
        }
        j->quotes[k] = q;
        j->lines[k] = l;
    }
    floe_free(buf);
    floe_input_close(in);
    return st;
}

static floe_status add_task(csv_task **v, int32_t *n, int32_t *cap, const char *path, int64_t begin, int64_t end,
                            int64_t line, bool inq) {
    if (*n == *cap) {
        int32_t nc = *cap ? *cap * 2 : 16;
        csv_task *t = floe_realloc(*v, (size_t)nc * sizeof *t);
        if (!t) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a CSV scan: out of memory");
        *v = t;
        *cap = nc;
    }
    csv_task *t = &(*v)[*n];
    if (!(t->path = floe_strdup(path))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a CSV scan: out of memory");
    t->begin = begin, t->end = end, t->line = line, t->inq = inq;
    (*n)++;
    return NULL;
}

/* The first file's sample: all of a compressed file, else its first
 * SAMPLE_BYTES. */
static floe_status load_sample(const char *path, floe_fileio *io, csv_file *f) {
    memset(f, 0, sizeof *f);
    f->path = path;
    if (is_compressed(path)) return load_file(path, io, f);
    floe_input *in = NULL;
    FLOE_TRY(open_input(path, io, &in));
    size_t n = in->size < SAMPLE_BYTES ? (size_t)in->size : SAMPLE_BYTES;
    f->truncated = n < in->size;
    f->data = floe_malloc(n + 1);
    floe_status st = f->data ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    if (!st && n) st = floe_input_read(in, 0, n, f->data);
    f->n = n;
    floe_input_close(in);
    return st;
}

floe_status floe_csv_plan_scan(const char *const *patterns, int32_t n_patterns, floe_fileio *io,
                               const floe_csv_options *o, int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    scan_file_list files;
    memset(&files, 0, sizeof files);
    floe_fileio *use_io = io;
    floe_status st = NULL;
    for (int32_t i = 0; i < n_patterns && !st; i++) st = scan_expand_pattern(patterns[i], &use_io, &files);
    floe_fileio *own_io = use_io != io ? use_io : NULL;
    if (!st && files.n == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "no CSV files to read");
    csv_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.o = o;
    plan.null_len = strlen(o->nullstr ? o->nullstr : "");
    csv_file f;
    memset(&f, 0, sizeof f);
    if (!st) st = load_sample(files.v[0], use_io, &f);
    if (!st) f.start = skip_lines(&f, o->skip, &f.start_line);
    if (!st) st = sniff(&f, f.start, o, &plan.d);
    if (!st && plan.d.delim == plan.d.quote && plan.d.quote)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "the CSV delimiter and quote must differ");
    if (!st) st = detect(&f, &plan);
    floe_free(f.data);
    /* The tasks: byte ranges of each plain file. */
    int64_t rb = o->range_bytes > 0 ? o->range_bytes : (int64_t)8 << 20;
    bool parity_ok = plan.d.quote == 0 || plan.d.escape == plan.d.quote;
    csv_task *tasks = NULL;
    int32_t nt = 0, cap = 0;
    floe_threadpool *pool = NULL;
    if (!st) st = floe_threadpool_default(&pool);
    for (int32_t fi = 0; fi < files.n && !st; fi++) {
        const char *path = files.v[fi];
        int64_t size = 0;
        if (!is_compressed(path) && parity_ok) {
            floe_input *in = NULL;
            st = open_input(path, use_io, &in);
            if (!st) size = (int64_t)in->size;
            if (in) floe_input_close(in);
        }
        if (st) break;
        if (size <= rb) {
            st = add_task(&tasks, &nt, &cap, path, 0, -1, 1, false);
            continue;
        }
        int64_t nr = (size + rb - 1) / rb;
        count_job j = {path, use_io, (uint8_t)plan.d.quote, rb, size, NULL, NULL};
        j.quotes = floe_calloc((size_t)nr, sizeof *j.quotes);
        j.lines = floe_calloc((size_t)nr, sizeof *j.lines);
        if (!j.quotes || !j.lines) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a CSV scan: out of memory");
        if (!st) st = floe_parallel_for(pool, (size_t)nr, 1, count_file_ranges, &j, NULL);
        int64_t quotes = 0, line = 1;
        for (int64_t k = 0; !st && k < nr; k++) {
            int64_t b = k * rb, e = b + rb < size ? b + rb : size;
            st = add_task(&tasks, &nt, &cap, path, b, e, line, (quotes & 1) != 0);
            quotes += j.quotes[k];
            line += j.lines[k];
        }
        floe_free(j.quotes);
        floe_free(j.lines);
    }
    scan_file_list_free(&files);
    if (own_io) floe_fileio_free(own_io);
    if (st) {
        csv_plan_free(&plan);
        for (int32_t i = 0; i < nt; i++) floe_free(tasks[i].path);
        floe_free(tasks);
        return st;
    }
    return csv_scan_new(&plan, o, tasks, nt, n_partitions, out);
}
