/*
 * csv_read.c — CSV files into batches (see csv_read.h).
 *
 * A file is read whole (decompressed when it ends in .gz / .zst), then:
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
#include "exec/scan/scan_files.h"
#include "floe/exec.h"
#include "floe/memory.h"
#include "formats/compress.h"

#define SAMPLE_RECORDS 20480
#define SNIFF_RECORDS 64
#define FLUSH_ROWS 65536

void floe_csv_options_init(floe_csv_options *o) {
    memset(o, 0, sizeof *o);
    o->delim = -1;
    o->quote = -1;
    o->escape = -1;
    o->header = -1;
    o->nullstr = "";
    o->quoted_nulls = true;
    o->auto_detect = true;
}

typedef struct dialect {
    int delim, quote, escape; /* quote 0: none */
} dialect;

/* One parsed record: field i is text[off[i], off[i] + len[i]). */
typedef struct record {
    floe_buf text;
    int64_t *off, *len;
    bool *quoted;
    int32_t n, cap;
} record;

static void record_free(record *r) {
    floe_buf_free(&r->text);
    floe_free(r->off);
    floe_free(r->len);
    floe_free(r->quoted);
    memset(r, 0, sizeof *r);
}

static floe_status record_end_field(record *r, int64_t start, bool quoted) {
    if (r->n == r->cap) {
        int32_t cap = r->cap ? r->cap * 2 : 16;
        int64_t *o = floe_realloc(r->off, (size_t)cap * sizeof *o);
        if (o) r->off = o;
        int64_t *l = floe_realloc(r->len, (size_t)cap * sizeof *l);
        if (l) r->len = l;
        bool *q = floe_realloc(r->quoted, (size_t)cap * sizeof *q);
        if (q) r->quoted = q;
        if (!o || !l || !q) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
        r->cap = cap;
    }
    r->off[r->n] = start;
    r->len[r->n] = (int64_t)r->text.len - start;
    r->quoted[r->n] = quoted;
    r->n++;
    return NULL;
}

/* Parse the record at *pos (< n); *pos moves past its terminator and
 * *lines counts the newlines consumed.  An unterminated quote at the end
 * of the data is an error (the caller names the file and line). */
static floe_status parse_record(const dialect *d, const uint8_t *p, size_t n, size_t *pos, record *r,
                                int64_t *lines) {
    floe_buf_clear(&r->text);
    r->n = 0;
    size_t i = *pos;
    int64_t start = 0;
    bool quoted = false, inq = false;
    const int q = d->quote, e = d->escape;
    while (i < n) {
        uint8_t c = p[i];
        if (inq) {
            if (c == q) {
                if (e == q && i + 1 < n && p[i + 1] == q) {
                    FLOE_TRY(floe_buf_append_byte(&r->text, c));
                    i += 2;
                    continue;
                }
                inq = false;
                i++;
                continue;
            }
            if (e != q && c == e && i + 1 < n && (p[i + 1] == q || p[i + 1] == e)) {
                FLOE_TRY(floe_buf_append_byte(&r->text, p[i + 1]));
                i += 2;
                continue;
            }
            if (c == '\n') (*lines)++;
            /* Copy the run of ordinary bytes at once. */
            size_t j = i + 1;
            while (j < n && p[j] != q && p[j] != e && p[j] != '\n') j++;
            FLOE_TRY(floe_buf_append(&r->text, p + i, j - i));
            i = j;
            continue;
        }
        if (q && c == q) {
            inq = quoted = true;
            i++;
            continue;
        }
        if (c == d->delim) {
            FLOE_TRY(record_end_field(r, start, quoted));
            start = (int64_t)r->text.len;
            quoted = false;
            i++;
            continue;
        }
        if (c == '\n' || c == '\r') {
            i += (c == '\r' && i + 1 < n && p[i + 1] == '\n') ? 2 : 1;
            (*lines)++;
            *pos = i;
            return record_end_field(r, start, quoted);
        }
        size_t j = i + 1;
        while (j < n && p[j] != q && p[j] != d->delim && p[j] != '\n' && p[j] != '\r') j++;
        FLOE_TRY(floe_buf_append(&r->text, p + i, j - i));
        i = j;
    }
    *pos = n;
    if (inq) return floe_error(FLOE_ERR_CORRUPT, "unterminated quoted field");
    return record_end_field(r, start, quoted);
}

/* A blank line: one empty unquoted field (skipped when a file has more
 * than one column, as DuckDB does). */
static bool record_blank(const record *r) { return r->n == 1 && r->len[0] == 0 && !r->quoted[0]; }

/* ------------------------------------------------------------ detection */

typedef enum { T_BOOL, T_BIGINT, T_DOUBLE, T_DATE, T_TIMESTAMP, T_VARCHAR } det_type;

static bool is_bool(const char *s, int64_t n) {
    return (n == 4 && !strncasecmp(s, "true", 4)) || (n == 5 && !strncasecmp(s, "false", 5)) ||
           (n == 1 && (s[0] == 't' || s[0] == 'T' || s[0] == 'f' || s[0] == 'F'));
}

static bool is_bigint(const char *s, int64_t n) {
    int64_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    if (i >= n || n - i > 19) return false;
    if (s[i] == '0' && n - i > 1) return false; /* DuckDB: leading zeros are text */
    for (int64_t j = i; j < n; j++)
        if (s[j] < '0' || s[j] > '9') return false;
    if (n - i == 19) {
        char buf[24];
        memcpy(buf, s + i, 19);
        buf[19] = 0;
        if (strcmp(buf, s[0] == '-' ? "9223372036854775808" : "9223372036854775807") > 0) return false;
    }
    return true;
}

static bool is_double(const char *s, int64_t n) {
    if (n == 0 || n > 60) return false;
    bool digit = false;
    for (int64_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') digit = true;
        else if (!(c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return false;
    }
    if (!digit) return false;
    int64_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (k + 1 < n && s[k] == '0' && s[k + 1] >= '0' && s[k + 1] <= '9') return false; /* as DuckDB */
    char buf[64];
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    char *end = NULL;
    errno = 0;
    (void)strtod(buf, &end);
    return end == buf + n;
}

static bool digits(const char *s, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return n > 0;
}

/* YYYY-MM-DD with a valid month and day. */
static bool is_date(const char *s, int64_t n) {
    if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) || !digits(s + 8, 2))
        return false;
    int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* YYYY-MM-DD[ T]HH:MM[:SS[.fraction]] */
static bool is_timestamp(const char *s, int64_t n) {
    if (n < 16 || !is_date(s, 10) || (s[10] != ' ' && s[10] != 'T')) return false;
    if (!digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2)) return false;
    if (n == 16) return true;
    if (n < 19 || s[16] != ':' || !digits(s + 17, 2)) return false;
    if (n == 19) return true;
    return s[19] == '.' && digits(s + 20, n - 20);
}

static bool fits(det_type t, const char *s, int64_t n) {
    switch (t) {
    case T_BOOL: return is_bool(s, n);
    case T_BIGINT: return is_bigint(s, n);
    case T_DOUBLE: return is_double(s, n);
    case T_DATE: return is_date(s, n);
    case T_TIMESTAMP: return is_timestamp(s, n);
    default: return true;
    }
}

static floe_type *det_floe_type(det_type t) {
    static const floe_type_id ids[] = {FLOE_TYPE_BOOL, FLOE_TYPE_INT64, FLOE_TYPE_FLOAT64,
                                       FLOE_TYPE_DATE32, FLOE_TYPE_TIMESTAMP_US, FLOE_TYPE_STRING};
    return floe_type_primitive(ids[t]);
}

/* A given column type as the detector's class (VARCHAR: not judged). */
static det_type det_of_type(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: return T_BOOL;
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_INT64: return T_BIGINT;
    case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64: return T_DOUBLE;
    case FLOE_TYPE_DATE32: return T_DATE;
    case FLOE_TYPE_TIMESTAMP_US: return T_TIMESTAMP;
    default: return T_VARCHAR;
    }
}

/* ------------------------------------------------------------- one file */

typedef struct csv_file {
    const char *path;
    uint8_t *data;
    size_t n;
    size_t start;       /* first byte after skipped lines (and header)   */
    int64_t start_line; /* line number (1-based) of the byte at start    */
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
    return (size_t)r->len[i] == p->null_len && memcmp(r->text.data + r->off[i], p->o->nullstr, p->null_len) == 0;
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
            if (!st) st = floe_buf_append(&text, r.text.data + r.off[i], (size_t)r.len[i]);
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
            while (t < T_VARCHAR && !fits(t, s, offs[2 * k + 1])) t++;
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
                det_type t = o->n_types > 0 ? det_of_type(o->types[c]) : dt[c];
                if (t == T_VARCHAR) continue;
                all_varchar = false;
                if (offs[2 * c + 1] >= 0 && !fits(t, (const char *)text.data + offs[2 * c], offs[2 * c + 1]))
                    mismatch = true;
            }
            header = !first_null && (all_varchar || mismatch);
            /* The types were detected without row 0; with no header, row 0
             * must fit them too. */
            for (int32_t c = 0; !header && detect_types && c < ncols; c++) {
                if (offs[2 * c + 1] < 0) continue;
                const char *s = (const char *)text.data + offs[2 * c];
                while (dt[c] < T_VARCHAR && !fits(dt[c], s, offs[2 * c + 1])) dt[c]++;
            }
        }
    }
    if (!st && !(p->types = floe_calloc((size_t)ncols, sizeof *p->types)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    if (!st && !(p->names = floe_calloc((size_t)ncols, sizeof *p->names)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    if (!st) p->ncols = ncols;
    for (int32_t c = 0; !st && c < ncols; c++) {
        p->types[c] = floe_type_retain(o->n_types > 0 ? o->types[c] : det_floe_type(dt[c]));
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
        for (size_t i = r->begin; i < r->end; i++) {
            q += p[i] == qc && qc;
            l += p[i] == '\n';
        }
        r->quotes = q;
        r->lines = l;
    }
    return NULL;
}

/* Cast the string columns to the plan's types; a bad value is found row by
 * row so the error names its line and column. */
static floe_status cast_batch(const csv_job *j, floe_array **cols, const int64_t *lines, int64_t rows,
                              floe_batch **out) {
    const csv_plan *p = j->p;
    floe_status st = NULL;
    floe_schema *one = NULL;
    floe_field f;
    FLOE_TRY(floe_field_init(&f, "v", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    st = floe_type_struct(&f, 1, &one);
    floe_field_clear(&f);
    for (int32_t c = 0; !st && c < p->ncols; c++) {
        if (p->types[c]->id == FLOE_TYPE_STRING) continue;
        floe_expr *col = NULL, *cast = NULL;
        floe_batch *b = NULL;
        floe_array *res = NULL;
        st = floe_expr_column(0, &col);
        if (!st) st = floe_expr_cast(col, p->types[c], &cast); /* retains both */
        floe_expr_release(col);
        if (!st) st = floe_batch_new(one, &cols[c], 1, rows, &b);
        if (!st) st = floe_expr_eval(cast, b, &res);
        if (st) {
            /* Find the row. */
            floe_status_free(st);
            st = NULL;
            for (int64_t i = 0; i < rows && !st; i++) {
                floe_array *sl = NULL, *r1 = NULL;
                floe_batch *b1 = NULL;
                st = floe_array_slice(cols[c], i, 1, &sl);
                if (!st) st = floe_batch_new(one, &sl, 1, 1, &b1);
                if (!st) st = floe_expr_eval(cast, b1, &r1);
                floe_array_release(sl);
                floe_array_release(r1);
                floe_batch_release(b1);
                if (st)
                    st = floe_status_wrap(st, "%s '%s' line %lld, column %s", p->o->what ? p->o->what : "read_csv",
                                          j->f->path, (long long)lines[i], p->names[c]);
            }
            if (!st) st = floe_error(FLOE_ERR_INTERNAL, "CSV cast failed on the batch but on no row");
        }
        floe_batch_release(b);
        floe_expr_release(cast);
        if (!st) {
            floe_array_release(cols[c]);
            cols[c] = res;
        } else floe_array_release(res);
    }
    floe_type_release(one);
    if (!st) st = floe_batch_new(j->schema, cols, p->ncols, rows, out);
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

/* Parse the records starting in [begin, end) into batches. */
static floe_status parse_span(const csv_job *j, csv_range *rg, size_t begin, size_t end, int64_t line) {
    const csv_plan *p = j->p;
    const csv_file *f = j->f;
    floe_status st = NULL;
    record r;
    memset(&r, 0, sizeof r);
    floe_builder **bl = floe_calloc((size_t)p->ncols, sizeof *bl);
    floe_array **cols = floe_calloc((size_t)p->ncols, sizeof *cols);
    int64_t *lines = floe_malloc(FLUSH_ROWS * sizeof *lines);
    if (!bl || !cols || !lines) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading CSV: out of memory");
    int64_t rows = 0;
    size_t pos = begin;
    while (!st && (pos < end || rows > 0)) {
        if (rows == 0)
            for (int32_t c = 0; !st && c < p->ncols; c++)
                st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 1024, &bl[c]);
        while (!st && pos < end && rows < FLUSH_ROWS) {
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
                if (is_null_field(p, &r, c)) {
                    st = floe_builder_append_null(bl[c]);
                    continue;
                }
                const uint8_t *s = r.text.data + r.off[c];
                size_t bad = 0;
                if (!floe_utf8_valid(s, (size_t)r.len[c], &bad)) {
                    st = floe_error(FLOE_ERR_CORRUPT, "'%s' line %lld, column %s: invalid UTF-8 byte 0x%02x",
                                    f->path, (long long)rec_line, p->names[c], s[bad]);
                    break;
                }
                st = floe_builder_append_binary(bl[c], s, r.len[c]);
            }
            if (!st) lines[rows++] = rec_line;
        }
        if (st) break;
        for (int32_t c = 0; !st && c < p->ncols; c++) {
            st = floe_builder_finish(bl[c], &cols[c]);
            floe_builder_free(bl[c]);
            bl[c] = NULL;
        }
        floe_batch *b = NULL;
        if (!st && rows > 0) st = cast_batch(j, cols, lines, rows, &b);
        for (int32_t c = 0; c < p->ncols; c++) {
            floe_array_release(cols[c]);
            cols[c] = NULL;
        }
        if (!st && b) st = range_add_batch(rg, b);
        rows = 0;
    }
    for (int32_t c = 0; bl && c < p->ncols; c++) floe_builder_free(bl[c]);
    floe_free(bl);
    floe_free(cols);
    floe_free(lines);
    record_free(&r);
    return st;
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
