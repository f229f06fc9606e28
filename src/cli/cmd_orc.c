/*
 * cmd_orc.c — `floe orc`: look inside ORC files.
 *
 *   floe orc schema FILE   the type tree: column ids, names, ORC types, the
 *                          floe type each is read as, Iceberg field ids and
 *                          the other type attributes
 *   floe orc meta FILE     the tail: postscript (version, compression, block
 *                          size), writer, rows, user metadata, file
 *                          statistics, and per stripe its offset, lengths,
 *                          rows, writer time zone, streams, encodings and
 *                          stripe statistics
 *   floe orc cat FILE ...  rows (cmd_orc_cat.c)
 *
 * The same shape as `floe parquet`: sub-commands are rows of a table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "cli/cmd_orc_cat.h"
#include "cli/commands.h"
#include "formats/orc/file.h"

typedef struct orc_subcommand {
    const char *name;
    const char *args;
    const char *summary;
    floe_status (*run)(int argc, char **argv);
} orc_subcommand;

static floe_status cmd_schema(int argc, char **argv);
static floe_status cmd_meta(int argc, char **argv);

static const orc_subcommand subcommands[] = {
    {"schema", "FILE", "print the type tree: column ids, types, Iceberg ids, attributes", cmd_schema},
    {"meta", "FILE", "print the tail: postscript, stripes, streams, encodings, statistics", cmd_meta},
    {"cat", "FILE ...", "print rows: [--columns a,b] [--limit N] [--format table|csv|jsonl]",
     floe_cli_orc_cat},
    {NULL, NULL, NULL, NULL},
};

static void usage(FILE *out) {
    fputs("usage: floe orc COMMAND ...\n\nCommands:\n", out);
    for (const orc_subcommand *c = subcommands; c->name; c++)
        fprintf(out, "  %-7s %-10s %s\n", c->name, c->args, c->summary);
}

floe_status floe_cli_orc(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "orc: missing command") : NULL;
    }
    for (const orc_subcommand *c = subcommands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0) return c->run(argc - 1, argv + 1);
    usage(stderr);
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "orc: unknown command '%s'", argv[1]);
}

static floe_status open_one(int argc, char **argv, floe_orc_file **f) {
    if (argc != 2) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "usage: floe orc %s FILE", argv[0]);
    return floe_orc_file_open_path(argv[1], f);
}

/* --------------------------------------------------------------- schema */

static void print_column(const floe_orc_column *c, int depth) {
    floe_buf ot = FLOE_BUF_INIT, ft = FLOE_BUF_INIT;
    floe_type *t = NULL;
    if (c->num_children == 0 || c->kind == FLOE_ORC_DECIMAL)
        floe_status_free(floe_orc_column_type_string(c, &ot));
    else
        floe_status_free(floe_buf_append_str(&ot, floe_orc_kind_name(c->kind)));
    floe_status st = floe_orc_column_type(c, FLOE_ORC_TS_US, &t);
    if (!st) floe_status_free(floe_type_to_string(t, &ft));
    floe_status_free(st);
    floe_type_release(t);
    printf("  %4u  %*s%s: %s", c->id, depth * 2, "", c->parent ? c->name : "(root)", floe_buf_cstr(&ot));
    if (c->parent && c->num_children == 0) printf(" -> %s", floe_buf_cstr(&ft));
    if (c->iceberg_id >= 0) printf("  iceberg.id=%d", (int)c->iceberg_id);
    for (int i = 0; i < c->num_attributes; i++)
        if (strcmp(c->attributes[i].key, "iceberg.id"))
            printf("  %s=%s", c->attributes[i].key, c->attributes[i].value);
    printf("\n");
    floe_buf_free(&ot);
    floe_buf_free(&ft);
    for (int i = 0; i < c->num_children; i++) print_column(c->children[i], depth + 1);
}

static floe_status cmd_schema(int argc, char **argv) {
    floe_orc_file *f;
    FLOE_TRY(open_one(argc, argv, &f));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_orc_column_type_string(f->schema->root, &b);
    if (!st) printf("%s\n\ncolumns (%u):\n    id  name: type -> floe type  attributes\n",
                    floe_buf_cstr(&b), f->schema->num_columns);
    floe_buf_free(&b);
    if (!st) print_column(f->schema->root, 0);
    floe_orc_file_close(f);
    return st;
}

/* ----------------------------------------------------------------- meta */

static void print_bytes(const char *label, const floe_orc_bytes *v) {
    if (!v->set) return;
    printf(" %s=\"", label);
    size_t n = v->len > 64 ? 64 : v->len;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = v->data[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f) printf("\\x%02x", c);
        else putchar(c);
    }
    printf("\"%s", n < v->len ? "..." : "");
}

static void print_stats(const char *indent, const floe_orc_file *f, uint32_t id,
                        const floe_orc_stats *s) {
    const char *path = f->schema->columns[id].path;
    printf("%scolumn %u %s:", indent, id, path[0] ? path : "(root)");
    if (s->has_num_values) printf(" values=%" PRIu64, s->num_values);
    if (s->has_has_null) printf(" has_null=%s", s->has_null ? "true" : "false");
    switch (s->kind) {
    case FLOE_ORC_STATS_INT:
    case FLOE_ORC_STATS_DATE:
        if (s->has_min) printf(" min=%" PRId64, s->int_min);
        if (s->has_max) printf(" max=%" PRId64, s->int_max);
        if (s->has_sum) printf(" sum=%" PRId64, s->int_sum);
        if (s->kind == FLOE_ORC_STATS_DATE) printf(" (days)");
        break;
    case FLOE_ORC_STATS_DOUBLE:
        if (s->has_min) printf(" min=%.17g", s->dbl_min);
        if (s->has_max) printf(" max=%.17g", s->dbl_max);
        if (s->has_sum) printf(" sum=%.17g", s->dbl_sum);
        break;
    case FLOE_ORC_STATS_STRING:
        print_bytes("min", &s->str_min);
        print_bytes("max", &s->str_max);
        print_bytes("lower", &s->str_lower);
        print_bytes("upper", &s->str_upper);
        if (s->has_sum) printf(" total_length=%" PRId64, s->len_sum);
        break;
    case FLOE_ORC_STATS_DECIMAL:
        print_bytes("min", &s->str_min);
        print_bytes("max", &s->str_max);
        print_bytes("sum", &s->dec_sum);
        break;
    case FLOE_ORC_STATS_BUCKET:
        if (s->has_sum) printf(" true_count=%" PRIu64, s->true_count);
        break;
    case FLOE_ORC_STATS_BINARY:
        if (s->has_sum) printf(" total_length=%" PRId64, s->len_sum);
        break;
    case FLOE_ORC_STATS_TIMESTAMP:
        if (s->has_utc) printf(" min_utc=%" PRId64 "ms max_utc=%" PRId64 "ms", s->ts_min_utc, s->ts_max_utc);
        else if (s->has_min) printf(" min=%" PRId64 "ms max=%" PRId64 "ms (local)", s->ts_min, s->ts_max);
        break;
    case FLOE_ORC_STATS_COLLECTION:
        printf(" min_children=%" PRIu64 " max_children=%" PRIu64 " total_children=%" PRIu64,
               s->coll_min, s->coll_max, s->coll_total);
        break;
    default: break;
    }
    if (s->has_bytes_on_disk) printf(" bytes_on_disk=%" PRIu64, s->bytes_on_disk);
    printf("\n");
}

static void print_stripe(const floe_orc_file *f, size_t i) {
    const floe_orc_stripe_info *s = floe_orc_file_stripe(f, i);
    printf("stripe %zu: offset=%" PRIu64 " index=%" PRIu64 " data=%" PRIu64 " footer=%" PRIu64
           " rows=%" PRIu64 " first_row=%" PRId64 "\n",
           i, s->offset, s->index_length, s->data_length, s->footer_length, s->num_rows,
           floe_orc_file_stripe_first_row(f, i));
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_orc_stripe_footer sf;
    floe_status st = floe_orc_file_read_stripe_footer(f, i, &a, &sf);
    if (st) {
        printf("  (stripe footer unreadable: %s)\n", floe_status_message(st));
        floe_status_free(st);
        floe_arena_destroy(&a);
        return;
    }
    printf("  writer_timezone: %s\n", sf.writer_timezone ? sf.writer_timezone : "(none)");
    printf("  streams (%zu):\n", sf.num_streams);
    for (size_t k = 0; k < sf.num_streams; k++) {
        const floe_orc_stream_info *si = &sf.streams[k];
        printf("    column %u %s offset=%" PRIu64 " length=%" PRIu64 "\n", si->column,
               floe_orc_stream_kind_name(si->kind), si->offset, si->length);
    }
    printf("  encodings:\n");
    for (size_t k = 0; k < sf.num_encodings && k < f->schema->num_columns; k++) {
        printf("    column %zu %s: %s", k, f->schema->columns[k].path[0] ? f->schema->columns[k].path : "(root)",
               floe_orc_encoding_name(sf.encodings[k].kind));
        if (sf.encodings[k].kind == FLOE_ORC_ENC_DICTIONARY || sf.encodings[k].kind == FLOE_ORC_ENC_DICTIONARY_V2)
            printf(" dictionary_size=%u", sf.encodings[k].dictionary_size);
        printf("\n");
    }
    if (f->has_metadata) {
        printf("  statistics:\n");
        for (uint32_t c = 0; c < f->schema->num_columns; c++) {
            const floe_orc_stats *ss = floe_orc_file_stripe_stats(f, i, c);
            if (ss) print_stats("    ", f, c, ss);
        }
    }
    floe_arena_destroy(&a);
}

static floe_status cmd_meta(int argc, char **argv) {
    floe_orc_file *f;
    FLOE_TRY(open_one(argc, argv, &f));
    const floe_orc_postscript *ps = &f->ps;
    const floe_orc_footer *ft = &f->footer;
    printf("file: %s\n", f->path);
    printf("size: %" PRIu64 " bytes\n", f->size);
    printf("postscript: version=");
    for (int i = 0; i < ps->num_version; i++) printf("%s%u", i ? "." : "", ps->version[i]);
    if (!ps->num_version) printf("(none)");
    printf(" writer_version=%u compression=%s block_size=%" PRIu64 "%s\n", ps->writer_version,
           floe_orc_compression_name(ps->compression), f->block_size,
           ps->has_block_size ? "" : " (default)");
    printf("footer: %" PRIu64 " bytes at offset %" PRIu64 ", metadata: %" PRIu64 " bytes at offset %" PRIu64
           "\n", ps->footer_length, f->footer_offset, ps->metadata_length, f->metadata_offset);
    static const char *const writers[] = {"ORC Java", "ORC C++", "Presto", "Scritchley Go", "Trino", "CUDF"};
    if (ft->has_writer) printf("writer: %s\n", ft->writer < 6 ? writers[ft->writer] : "(unknown)");
    if (ft->software_version) printf("software_version: %s\n", ft->software_version);
    printf("rows: %" PRIu64 "\n", f->num_rows);
    printf("row_index_stride: %u\n", ft->row_index_stride);
    if (ft->calendar) printf("calendar: %s\n", ft->calendar == 2 ? "proleptic Gregorian" : "Julian/Gregorian");
    printf("columns: %u\n", f->schema->num_columns);
    printf("stripes: %zu\n", ft->num_stripes);
    if (ft->num_user_meta) {
        printf("user_metadata:\n");
        for (size_t i = 0; i < ft->num_user_meta; i++)
            printf("  %s (%zu bytes)\n", ft->user_meta[i].name, ft->user_meta[i].value.len);
    }
    if (f->metadata_error) printf("stripe statistics: unreadable (%s)\n", f->metadata_error);
    if (ft->num_stats) {
        printf("file statistics:\n");
        for (uint32_t c = 0; c < f->schema->num_columns; c++) print_stats("  ", f, c, &ft->stats[c]);
    }
    for (size_t i = 0; i < ft->num_stripes; i++) print_stripe(f, i);
    floe_orc_file_close(f);
    return NULL;
}
