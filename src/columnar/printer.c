/*
 * printer.c — query results as an aligned table, CSV or JSON lines (the
 * exact formats are described in printer.h).
 *
 * Each row is rendered into a scratch buffer and written in one call.  The
 * table format keeps rendered cells of up to table_buffer_rows rows in one
 * byte buffer plus an offsets array, so buffering costs two allocations
 * that grow geometrically, not one per cell.
 */
#include "columnar/printer.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "columnar/internal.h"
#include "floe/memory.h"

struct floe_printer {
    floe_print_options o;
    FILE *fp;
    floe_buf *out;
    floe_schema *schema;
    int32_t ncols;
    bool *right;          /* table: right-align column i */
    int64_t *width;       /* table: display width of column i */
    int64_t rows;
    bool began, ended, flushed;
    floe_buf line;        /* the row being written */
    floe_buf cell;        /* one value's text */
    floe_buf cells;       /* table: buffered cell texts */
    int64_t *cell_end;    /* table: end offset in `cells` of each cell */
    int64_t cell_cap;     /* entries allocated in cell_end */
    int64_t buffered;     /* table: rows held in `cells` */
    int64_t rows_out;     /* expanded: records written */
};

void floe_print_options_init(floe_print_options *o, floe_print_format format) {
    o->format = format;
    o->null_text = format == FLOE_PRINT_TABLE ? "NULL" : "";
    o->header = true;
    o->footer = true;
    o->table_buffer_rows = 10000;
    o->title = NULL;
    o->expanded = false;
}

floe_status floe_print_format_parse(const char *name, floe_print_format *out) {
    if (strcmp(name, "table") == 0) *out = FLOE_PRINT_TABLE;
    else if (strcmp(name, "csv") == 0) *out = FLOE_PRINT_CSV;
    else if (strcmp(name, "jsonl") == 0 || strcmp(name, "json") == 0) *out = FLOE_PRINT_JSONL;
    else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown output format '%s' (table, csv, jsonl)", name);
    return NULL;
}

floe_status floe_printer_new(const floe_print_options *opts, FILE *fp, floe_buf *out, floe_printer **printer) {
    *printer = NULL;
    if (!fp && !out) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "printer needs a FILE or a buffer");
    floe_printer *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory allocating a printer");
    p->o = *opts;
    if (!p->o.null_text) p->o.null_text = "";
    if (p->o.table_buffer_rows < 1) p->o.table_buffer_rows = 1;
    p->fp = fp;
    p->out = out;
    *printer = p;
    return NULL;
}

void floe_printer_free(floe_printer *p) {
    if (!p) return;
    floe_type_release(p->schema);
    floe_free(p->right);
    floe_free(p->width);
    floe_free(p->cell_end);
    floe_buf_free(&p->line);
    floe_buf_free(&p->cell);
    floe_buf_free(&p->cells);
    floe_free(p);
}

int64_t floe_printer_rows(const floe_printer *p) { return p->rows; }

static floe_status emit(floe_printer *p, const void *data, size_t n) {
    if (!n) return NULL;
    if (!p->fp) return floe_buf_append(p->out, data, n);
    if (fwrite(data, 1, n, p->fp) != n)
        return floe_error(FLOE_ERR_IO, "writing results: %s", strerror(errno));
    return NULL;
}

static floe_status emit_line(floe_printer *p) {
    floe_status st = emit(p, p->line.data, p->line.len);
    floe_buf_clear(&p->line);
    return st;
}

static bool is_numeric(floe_type_id id) {
    return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64 || id == FLOE_TYPE_FLOAT32 ||
           id == FLOE_TYPE_FLOAT64 || id == FLOE_TYPE_DECIMAL128;
}

/* =================================================================== CSV */

static floe_status csv_field(floe_buf *b, const char *s, size_t n, bool quote_empty) {
    bool quote = n == 0 && quote_empty;
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (!quote) return floe_buf_append(b, s, n);
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '"') continue;
        FLOE_TRY(floe_buf_append(b, s + start, i + 1 - start));
        start = i; /* written again: doubled */
    }
    FLOE_TRY(floe_buf_append(b, s + start, n - start));
    return floe_buf_append_byte(b, '"');
}

static floe_status csv_header(floe_printer *p) {
    for (int32_t c = 0; c < p->ncols; c++) {
        if (c) FLOE_TRY(floe_buf_append_byte(&p->line, ','));
        const char *name = p->schema->children[c].name;
        FLOE_TRY(csv_field(&p->line, name, strlen(name), true));
    }
    FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
    return emit_line(p);
}

static floe_status csv_batch(floe_printer *p, const floe_batch *b) {
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t c = 0; c < p->ncols; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&p->line, ','));
            const floe_array *a = b->columns[c];
            if (floe_array_is_null(a, r)) {
                FLOE_TRY(floe_buf_append_str(&p->line, p->o.null_text));
                continue;
            }
            floe_buf_clear(&p->cell);
            FLOE_TRY(floe_format_value(a, r, &p->cell));
            FLOE_TRY(csv_field(&p->line, floe_buf_cstr(&p->cell), p->cell.len, true));
        }
        FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
        FLOE_TRY(emit_line(p));
    }
    return NULL;
}

/* ================================================================== JSON */

static floe_status json_string(floe_buf *b, const char *s, int64_t n) {
    static const char hex[] = "0123456789abcdef";
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    int64_t start = 0, i = 0;
    while (i < n) {
        uint8_t c = (uint8_t)s[i];
        const char *esc = NULL;
        char u[8];
        int k = 1;
        if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\r') esc = "\\r";
        else if (c == '\t') esc = "\\t";
        else if (c == '\b') esc = "\\b";
        else if (c == '\f') esc = "\\f";
        else if (c < 0x20) {
            memcpy(u, "\\u00", 4);
            u[4] = hex[c >> 4];
            u[5] = hex[c & 15];
            u[6] = 0;
            esc = u;
        } else if (c >= 0x80) {
            k = floe_utf8_seq_len((const uint8_t *)s + i, n - i);
            if (!k) {
                esc = "\xEF\xBF\xBD"; /* U+FFFD for a byte that is not UTF-8 */
                k = 1;
            }
        }
        if (esc) {
            FLOE_TRY(floe_buf_append(b, s + start, (size_t)(i - start)));
            FLOE_TRY(floe_buf_append_str(b, esc));
            start = i + k;
        }
        i += k;
    }
    FLOE_TRY(floe_buf_append(b, s + start, (size_t)(n - start)));
    return floe_buf_append_byte(b, '"');
}

static floe_status base64(floe_buf *b, const uint8_t *p, int64_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    uint8_t *d = floe_buf_extend(b, (size_t)((n + 2) / 3 * 4));
    if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory writing base64");
    int64_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *d++ = (uint8_t)tab[v >> 18];
        *d++ = (uint8_t)tab[(v >> 12) & 63];
        *d++ = (uint8_t)tab[(v >> 6) & 63];
        *d++ = (uint8_t)tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *d++ = (uint8_t)tab[v >> 18];
        *d++ = (uint8_t)tab[(v >> 12) & 63];
        *d++ = i + 1 < n ? (uint8_t)tab[(v >> 6) & 63] : '=';
        *d++ = '=';
    }
    return floe_buf_append_byte(b, '"');
}

static floe_status json_value(floe_printer *p, floe_buf *b, const floe_array *a, int64_t i, int depth);

/* The text of a value as a JSON string (map keys, dates, ...). */
static floe_status json_text(floe_printer *p, floe_buf *b, const floe_array *a, int64_t i) {
    if (a->type->id == FLOE_TYPE_STRING) {
        floe_strview v = floe_array_get_str(a, i);
        return json_string(b, v.data, v.len);
    }
    floe_buf_clear(&p->cell);
    FLOE_TRY(floe_format_value(a, i, &p->cell));
    return json_string(b, floe_buf_cstr(&p->cell), (int64_t)p->cell.len);
}

static floe_status json_nested(floe_printer *p, floe_buf *b, const floe_array *a, int64_t i, int depth) {
    const floe_type *t = a->type;
    if (t->id == FLOE_TYPE_STRUCT) {
        FLOE_TRY(floe_buf_append_byte(b, '{'));
        for (int32_t c = 0; c < a->n_children; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(b, ','));
            const char *name = t->children[c].name;
            FLOE_TRY(json_string(b, name, (int64_t)strlen(name)));
            FLOE_TRY(floe_buf_append_byte(b, ':'));
            FLOE_TRY(json_value(p, b, a->children[c], a->offset + i, depth + 1));
        }
        return floe_buf_append_byte(b, '}');
    }
    int64_t start, end;
    floe_array_get_range(a, i, &start, &end);
    const floe_array *c = a->children[0];
    if (t->id == FLOE_TYPE_LIST) {
        FLOE_TRY(floe_buf_append_byte(b, '['));
        for (int64_t j = start; j < end; j++) {
            if (j > start) FLOE_TRY(floe_buf_append_byte(b, ','));
            FLOE_TRY(json_value(p, b, c, j, depth + 1));
        }
        return floe_buf_append_byte(b, ']');
    }
    FLOE_TRY(floe_buf_append_byte(b, '{'));
    for (int64_t j = start; j < end; j++) {
        if (j > start) FLOE_TRY(floe_buf_append_byte(b, ','));
        FLOE_TRY(json_text(p, b, c->children[0], c->offset + j));
        FLOE_TRY(floe_buf_append_byte(b, ':'));
        FLOE_TRY(json_value(p, b, c->children[1], c->offset + j, depth + 1));
    }
    return floe_buf_append_byte(b, '}');
}

static floe_status json_real(floe_printer *p, floe_buf *b, double v, bool single) {
    if (isnan(v) || isinf(v)) return floe_buf_append_str(b, isnan(v) ? "\"NaN\"" : v < 0 ? "\"-Infinity\"" : "\"Infinity\"");
    return single ? floe_format_float((float)v, b) : floe_format_double(v, b);
}

static floe_status json_value(floe_printer *p, floe_buf *b, const floe_array *a, int64_t i, int depth) {
    if (depth > FLOE_MAX_NESTING) return floe_error(FLOE_ERR_UNSUPPORTED, "value nested too deeply to print");
    if (floe_array_is_null(a, i)) return floe_buf_append_str(b, "null");
    const floe_type *t = a->type;
    switch (t->id) {
    case FLOE_TYPE_BOOL:
        return floe_buf_append_str(b, floe_array_get_bool(a, i) ? "true" : "false");
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_DECIMAL128:
        return floe_format_value(a, i, b);
    case FLOE_TYPE_FLOAT32:
        return json_real(p, b, floe_array_get_float(a, i), true);
    case FLOE_TYPE_FLOAT64:
        return json_real(p, b, floe_array_get_double(a, i), false);
    case FLOE_TYPE_BINARY: {
        floe_strview v = floe_array_get_str(a, i);
        return base64(b, (const uint8_t *)v.data, v.len);
    }
    case FLOE_TYPE_FIXED_BINARY:
        return base64(b, floe_array_get_fixed(a, i), t->byte_width);
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP:
        return json_nested(p, b, a, i, depth);
    case FLOE_TYPE_VARIANT: /* its JSON text, as is */
        return floe_format_value(a, i, b);
    default:
        return json_text(p, b, a, i);
    }
}

static floe_status jsonl_batch(floe_printer *p, const floe_batch *b) {
    for (int64_t r = 0; r < b->num_rows; r++) {
        FLOE_TRY(floe_buf_append_byte(&p->line, '{'));
        for (int32_t c = 0; c < p->ncols; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&p->line, ','));
            const char *name = p->schema->children[c].name;
            FLOE_TRY(json_string(&p->line, name, (int64_t)strlen(name)));
            FLOE_TRY(floe_buf_append_byte(&p->line, ':'));
            FLOE_TRY(json_value(p, &p->line, b->columns[c], r, 0));
        }
        FLOE_TRY(floe_buf_append_str(&p->line, "}\n"));
        FLOE_TRY(emit_line(p));
    }
    return NULL;
}

/* ================================================================= table */

/* Display width: code points (continuation bytes do not count). */
static int64_t display_width(const uint8_t *s, int64_t n) {
    int64_t w = 0;
    for (int64_t i = 0; i < n; i++) w += (s[i] & 0xC0) != 0x80;
    return w;
}

static floe_status spaces(floe_buf *b, int64_t n) {
    for (; n > 0; n--) FLOE_TRY(floe_buf_append_byte(b, ' '));
    return NULL;
}

/* Append one cell's text to p->cells with control characters escaped. */
static floe_status table_cell(floe_printer *p, const floe_array *a, int64_t r) {
    if (floe_array_is_null(a, r)) return floe_buf_append_str(&p->cells, p->o.null_text);
    floe_buf_clear(&p->cell);
    FLOE_TRY(floe_format_value(a, r, &p->cell));
    const char *s = floe_buf_cstr(&p->cell);
    size_t start = 0;
    for (size_t i = 0; i < p->cell.len; i++) {
        char e = s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r' : s[i] == '\t' ? 't' : 0;
        if (!e) continue;
        FLOE_TRY(floe_buf_append(&p->cells, s + start, i - start));
        FLOE_TRY(floe_buf_append_byte(&p->cells, '\\'));
        FLOE_TRY(floe_buf_append_byte(&p->cells, (uint8_t)e));
        start = i + 1;
    }
    return floe_buf_append(&p->cells, s + start, p->cell.len - start);
}

static void trim_line(floe_buf *b) {
    while (b->len > 0 && b->data[b->len - 1] == ' ') b->len--;
    if (b->data) b->data[b->len] = 0;
}

/* Write buffered row `row` (cells in p->cells / p->cell_end). */
static floe_status table_row(floe_printer *p, int64_t row) {
    for (int32_t c = 0; c < p->ncols; c++) {
        int64_t k = row * p->ncols + c;
        int64_t start = k ? p->cell_end[k - 1] : 0, n = p->cell_end[k] - start;
        const uint8_t *s = p->cells.data + start;
        int64_t pad = p->width[c] - display_width(s, n);
        FLOE_TRY(floe_buf_append_str(&p->line, c ? " | " : " "));
        if (p->right[c]) FLOE_TRY(spaces(&p->line, pad));
        FLOE_TRY(floe_buf_append(&p->line, s, (size_t)n));
        if (!p->right[c]) FLOE_TRY(spaces(&p->line, pad));
    }
    trim_line(&p->line);
    FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
    return emit_line(p);
}

/* Write buffered row `row` expanded: a record line, then one line per
 * column.  width[0] is the name width, width[1] the value width. */
static floe_status expanded_row(floe_printer *p, int64_t row) {
    int64_t number = p->rows_out + 1;
    FLOE_TRY(floe_buf_printf(&p->line, "-[ RECORD %lld ]", (long long)number));
    int64_t total = p->width[0] + 3 + p->width[1];
    for (int64_t k = (int64_t)p->line.len; k < total; k++) FLOE_TRY(floe_buf_append_byte(&p->line, '-'));
    FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
    for (int32_t c = 0; c < p->ncols; c++) {
        const char *name = p->schema->children[c].name;
        int64_t k = row * p->ncols + c;
        int64_t start = k ? p->cell_end[k - 1] : 0, n = p->cell_end[k] - start;
        FLOE_TRY(floe_buf_append_str(&p->line, name));
        FLOE_TRY(spaces(&p->line, p->width[0] - display_width((const uint8_t *)name, (int64_t)strlen(name))));
        FLOE_TRY(floe_buf_append_str(&p->line, " | "));
        FLOE_TRY(floe_buf_append(&p->line, p->cells.data + start, (size_t)n));
        trim_line(&p->line);
        FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
    }
    p->rows_out++;
    return emit_line(p);
}

/* The title line, centred over `width` columns. */
static floe_status title_line(floe_printer *p, int64_t width) {
    if (!p->o.title || !p->o.header) return NULL;
    int64_t w = display_width((const uint8_t *)p->o.title, (int64_t)strlen(p->o.title));
    FLOE_TRY(spaces(&p->line, w < width ? (width - w) / 2 : 0));
    FLOE_TRY(floe_buf_append_str(&p->line, p->o.title));
    FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
    return emit_line(p);
}

static floe_status expanded_flush(floe_printer *p) {
    p->width[0] = p->width[1] = 0;
    for (int32_t c = 0; c < p->ncols; c++) {
        const char *name = p->schema->children[c].name;
        int64_t w = display_width((const uint8_t *)name, (int64_t)strlen(name));
        if (w > p->width[0]) p->width[0] = w;
    }
    for (int64_t r = 0; r < p->buffered; r++)
        for (int32_t c = 0; c < p->ncols; c++) {
            int64_t k = r * p->ncols + c, start = k ? p->cell_end[k - 1] : 0;
            int64_t w = display_width(p->cells.data + start, p->cell_end[k] - start);
            if (w > p->width[1]) p->width[1] = w;
        }
    FLOE_TRY(title_line(p, p->width[0] + 3 + p->width[1]));
    for (int64_t r = 0; r < p->buffered; r++) FLOE_TRY(expanded_row(p, r));
    p->buffered = 0;
    floe_buf_clear(&p->cells);
    p->flushed = true;
    return NULL;
}

/* Size the columns from the header and buffered rows, print them all. */
static floe_status table_flush(floe_printer *p) {
    if (p->o.expanded) return expanded_flush(p);
    for (int32_t c = 0; c < p->ncols; c++) {
        const char *name = p->schema->children[c].name;
        p->width[c] = p->o.header ? display_width((const uint8_t *)name, (int64_t)strlen(name)) : 0;
    }
    for (int64_t r = 0; r < p->buffered; r++)
        for (int32_t c = 0; c < p->ncols; c++) {
            int64_t k = r * p->ncols + c, start = k ? p->cell_end[k - 1] : 0;
            int64_t w = display_width(p->cells.data + start, p->cell_end[k] - start);
            if (w > p->width[c]) p->width[c] = w;
        }
    if (p->o.header && p->ncols > 0) {
        int64_t total = 0;
        for (int32_t c = 0; c < p->ncols; c++) total += p->width[c] + 2 + (c > 0);
        FLOE_TRY(title_line(p, total));
        for (int32_t c = 0; c < p->ncols; c++) {
            const char *name = p->schema->children[c].name;
            int64_t pad = p->width[c] - display_width((const uint8_t *)name, (int64_t)strlen(name));
            FLOE_TRY(floe_buf_append_str(&p->line, c ? " | " : " "));
            FLOE_TRY(spaces(&p->line, pad / 2));
            FLOE_TRY(floe_buf_append_str(&p->line, name));
            FLOE_TRY(spaces(&p->line, pad - pad / 2));
        }
        trim_line(&p->line);
        FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
        for (int32_t c = 0; c < p->ncols; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&p->line, '+'));
            for (int64_t k = 0; k < p->width[c] + 2; k++) FLOE_TRY(floe_buf_append_byte(&p->line, '-'));
        }
        FLOE_TRY(floe_buf_append_byte(&p->line, '\n'));
        FLOE_TRY(emit_line(p));
    }
    for (int64_t r = 0; r < p->buffered; r++) FLOE_TRY(table_row(p, r));
    p->buffered = 0;
    floe_buf_clear(&p->cells);
    p->flushed = true;
    return NULL;
}

static floe_status table_batch(floe_printer *p, const floe_batch *b) {
    if (p->ncols == 0) return NULL;
    for (int64_t r = 0; r < b->num_rows; r++) {
        int64_t need = (p->buffered + 1) * p->ncols;
        if (need > p->cell_cap) {
            int64_t cap = p->cell_cap ? p->cell_cap * 2 : 64 * p->ncols;
            if (cap < need) cap = need;
            int64_t *ne = floe_realloc(p->cell_end, (size_t)cap * sizeof *ne);
            if (!ne) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory buffering table rows");
            p->cell_end = ne;
            p->cell_cap = cap;
        }
        for (int32_t c = 0; c < p->ncols; c++) {
            FLOE_TRY(table_cell(p, b->columns[c], r));
            p->cell_end[p->buffered * p->ncols + c] = (int64_t)p->cells.len;
        }
        p->buffered++;
        if (p->flushed) {
            FLOE_TRY(p->o.expanded ? expanded_row(p, 0) : table_row(p, 0));
            p->buffered = 0;
            floe_buf_clear(&p->cells);
        } else if (p->buffered >= p->o.table_buffer_rows) {
            FLOE_TRY(table_flush(p));
        }
    }
    return NULL;
}

/* ================================================================ stream */

floe_status floe_printer_begin(floe_printer *p, const floe_schema *schema) {
    if (p->began) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "printer already begun");
    if (schema->id != FLOE_TYPE_STRUCT) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema must be a struct");
    p->schema = floe_type_retain((floe_type *)schema);
    p->ncols = schema->n_children;
    size_t n = (size_t)(p->ncols > 2 ? p->ncols : 2); /* expanded uses two widths */
    p->right = floe_calloc(n, sizeof *p->right);
    p->width = floe_calloc(n, sizeof *p->width);
    if (!p->right || !p->width) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory starting a printer");
    for (int32_t c = 0; c < p->ncols; c++) p->right[c] = is_numeric(schema->children[c].type->id);
    p->began = true;
    if (p->o.format == FLOE_PRINT_CSV && p->o.header) return csv_header(p);
    return NULL;
}

floe_status floe_printer_add_batch(floe_printer *p, const floe_batch *b) {
    if (!p->began || p->ended) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "printer is not open for batches");
    if (b->num_columns != p->ncols)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "batch has %d columns, the printer %d", b->num_columns, p->ncols);
    floe_status st;
    switch (p->o.format) {
    case FLOE_PRINT_CSV: st = csv_batch(p, b); break;
    case FLOE_PRINT_JSONL: st = jsonl_batch(p, b); break;
    default: st = table_batch(p, b); break;
    }
    if (!st) p->rows += b->num_rows;
    return st;
}

floe_status floe_printer_end(floe_printer *p) {
    if (!p->began || p->ended) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "printer is not open");
    p->ended = true;
    if (p->o.format != FLOE_PRINT_TABLE) return NULL;
    if (!p->flushed) FLOE_TRY(table_flush(p));
    if (p->o.expanded) {
        if (p->o.footer && p->rows == 0) {
            FLOE_TRY(floe_buf_append_str(&p->line, "(0 rows)\n"));
            FLOE_TRY(emit_line(p));
        }
    } else if (p->o.footer) {
        FLOE_TRY(floe_buf_printf(&p->line, "(%lld row%s)\n", (long long)p->rows, p->rows == 1 ? "" : "s"));
        FLOE_TRY(emit_line(p));
    }
    if (p->fp && fflush(p->fp) != 0) return floe_error(FLOE_ERR_IO, "writing results: %s", strerror(errno));
    return NULL;
}
