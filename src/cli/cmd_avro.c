/*
 * cmd_avro.c — `floe avro`: look inside Avro container files (Iceberg
 * manifests and manifest lists are Avro).
 *
 *   floe avro schema FILE                  the embedded writer schema, pretty JSON
 *   floe avro meta FILE                    codec, header metadata, block/record counts
 *   floe avro cat FILE [--format jsonl] [--limit N]
 *                                          one JSON object per record
 *   floe avro rewrite IN OUT [--codec C] [--block-size N]
 *                                          re-encode (same schema and metadata)
 *
 * `rewrite` exists so other tools (python3-avro in the script tests) can
 * check what floe's writer produces from real Iceberg files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/avro/avro.h"

static const char avro_usage[] =
    "usage: floe avro schema FILE\n"
    "       floe avro meta FILE\n"
    "       floe avro cat FILE [--format jsonl] [--limit N]\n"
    "       floe avro rewrite IN OUT [--codec null|deflate|snappy|zstandard] [--block-size N]";

static floe_status usage_err(const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s\n%s", why, avro_usage);
}

static floe_status put(const void *p, size_t n) {
    if (n && fwrite(p, 1, n, stdout) != n)
        return floe_error(FLOE_ERR_IO, "writing to standard output failed");
    return NULL;
}

/* Open FILE and its reader; on success the caller closes both. */
static floe_status open_avro(const char *path, floe_input **in, floe_avro_reader **r) {
    FLOE_TRY(floe_input_open_local(path, in));
    floe_status st = floe_avro_reader_open(*in, NULL, r);
    if (st) floe_input_close(*in);
    return st;
}

static floe_status cmd_schema(const char *path) {
    floe_input *in;
    floe_avro_reader *r;
    FLOE_TRY(open_avro(path, &in, &r));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_avro_schema_to_json(floe_avro_reader_writer_schema(r), 1, &b);
    if (!st) st = floe_buf_append_byte(&b, '\n');
    if (!st) st = put(b.data, b.len);
    floe_buf_free(&b);
    floe_avro_reader_close(r);
    floe_input_close(in);
    return st;
}

/* Header keys whose values must not be echoed (none of Iceberg's are;
 * this guards against files carrying credentials). */
static int secret_key(const char *k) {
    static const char *const words[] = {"secret", "password", "passwd", "token", "credential",
                                        "private", "access-key", "access_key", NULL};
    for (const char *const *w = words; *w; w++)
        if (strcasestr(k, *w)) return 1;
    return 0;
}

/* Metadata values are mostly text (schemas, specs, ids); binary ones are
 * shown escaped so the terminal stays sane. */
static floe_status print_value(floe_buf *b, const uint8_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (v[i] >= 0x20 && v[i] < 0x7f) FLOE_TRY(floe_buf_append_byte(b, v[i]));
        else if (v[i] == '\n' || v[i] == '\t' || v[i] >= 0x80) FLOE_TRY(floe_buf_append_byte(b, v[i]));
        else FLOE_TRY(floe_buf_printf(b, "\\x%02x", v[i]));
    }
    return NULL;
}

static floe_status cmd_meta(const char *path) {
    floe_input *in;
    floe_avro_reader *r;
    FLOE_TRY(open_avro(path, &in, &r));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&b, "file: %s\nsize: %" PRIu64 " bytes\ncodec: %s\n", path,
                                     in->size, floe_avro_codec_name(floe_avro_reader_codec(r)));
    for (size_t i = 0; !st && i < floe_avro_reader_meta_count(r); i++) {
        const floe_avro_meta *m = floe_avro_reader_meta_at(r, i);
        if (!strcmp(m->key, "avro.schema")) {
            st = floe_buf_printf(&b, "meta %s: (%zu bytes; see 'floe avro schema')\n", m->key, m->len);
            continue;
        }
        st = floe_buf_printf(&b, "meta %s: ", m->key);
        if (!st && secret_key(m->key)) st = floe_buf_append_str(&b, "***");
        else if (!st) st = print_value(&b, m->value, m->len);
        if (!st) st = floe_buf_append_byte(&b, '\n');
    }
    /* Count blocks and records by reading through the file. */
    floe_arena a;
    floe_arena_init(&a, 0);
    int has = 1;
    while (!st && has) {
        floe_avro_value v;
        st = floe_avro_reader_next(r, &a, &v, &has);
        floe_arena_reset(&a);
    }
    floe_arena_destroy(&a);
    if (!st) st = floe_buf_printf(&b, "blocks: %" PRIu64 "\nrecords: %" PRIu64 "\n",
                                  floe_avro_reader_blocks(r), floe_avro_reader_records(r));
    if (!st) st = put(b.data, b.len);
    floe_buf_free(&b);
    floe_avro_reader_close(r);
    floe_input_close(in);
    return st;
}

static floe_status cmd_cat(const char *path, int64_t limit) {
    floe_input *in;
    floe_avro_reader *r;
    FLOE_TRY(open_avro(path, &in, &r));
    const floe_avro_schema *s = floe_avro_reader_schema(r);
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int64_t n = 0; !st && (limit < 0 || n < limit); n++) {
        floe_avro_value v;
        int has;
        st = floe_avro_reader_next(r, &a, &v, &has);
        if (st || !has) break;
        floe_buf_clear(&b);
        st = floe_avro_value_to_json(s, &v, &b);
        if (!st) st = floe_buf_append_byte(&b, '\n');
        if (!st) st = put(b.data, b.len);
        floe_arena_reset(&a);
    }
    fflush(stdout);
    floe_buf_free(&b);
    floe_arena_destroy(&a);
    floe_avro_reader_close(r);
    floe_input_close(in);
    return st;
}

static floe_status cmd_rewrite(const char *src, const char *dst, floe_avro_writer_options *o) {
    floe_input *in;
    floe_avro_reader *r;
    FLOE_TRY(open_avro(src, &in, &r));
    floe_output *out = NULL;
    floe_avro_writer *w = NULL;
    floe_arena a;
    floe_arena_init(&a, 0);
    /* Carry every custom header key across. */
    size_t nm = 0, total = floe_avro_reader_meta_count(r);
    floe_avro_meta *meta = floe_calloc(total + 1, sizeof *meta);
    floe_status st = meta ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; !st && i < total; i++) {
        const floe_avro_meta *m = floe_avro_reader_meta_at(r, i);
        if (strcmp(m->key, "avro.schema") && strcmp(m->key, "avro.codec")) meta[nm++] = *m;
    }
    if (!st) st = floe_output_create_local(dst, 1, &out);
    if (!st) st = floe_avro_writer_open(out, floe_avro_reader_schema(r), meta, nm, o, &w);
    for (int has = 1; !st && has;) {
        floe_avro_value v;
        st = floe_avro_reader_next(r, &a, &v, &has);
        if (!st && has) st = floe_avro_writer_append(w, &v);
        floe_arena_reset(&a);
    }
    if (w) {
        floe_status st2 = st ? NULL : floe_avro_writer_finish(w);
        if (st) floe_avro_writer_abort(w);
        st = st ? st : st2;
    }
    if (out) {
        if (st) floe_output_abort(out);
        else st = floe_output_close(out);
    }
    floe_free(meta);
    floe_arena_destroy(&a);
    floe_avro_reader_close(r);
    floe_input_close(in);
    return st;
}

floe_status floe_cli_avro(int argc, char **argv) {
    if (argc < 2) return usage_err("floe avro: missing subcommand");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "help")) {
        printf("%s\n", avro_usage);
        return NULL;
    }
    if (argc < 3) return usage_err("floe avro: missing FILE");
    if (!strcmp(sub, "schema") && argc == 3) return cmd_schema(argv[2]);
    if (!strcmp(sub, "meta") && argc == 3) return cmd_meta(argv[2]);
    if (!strcmp(sub, "cat")) {
        int64_t limit = -1;
        for (int i = 3; i < argc; i++) {
            if (!strcmp(argv[i], "--format") && i + 1 < argc) {
                if (strcmp(argv[++i], "jsonl") && strcmp(argv[i], "json"))
                    return usage_err("floe avro cat: only --format jsonl is supported");
            } else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
                char *end;
                limit = strtoll(argv[++i], &end, 10);
                if (*end || limit < 0) return usage_err("floe avro cat: --limit needs a count");
            } else {
                return usage_err("floe avro cat: unknown option");
            }
        }
        return cmd_cat(argv[2], limit);
    }
    if (!strcmp(sub, "rewrite") && argc >= 4) {
        floe_avro_writer_options o = {0};
        for (int i = 4; i < argc; i++) {
            if (!strcmp(argv[i], "--codec") && i + 1 < argc) {
                FLOE_TRY(floe_avro_codec_parse(argv[++i], &o.codec));
            } else if (!strcmp(argv[i], "--block-size") && i + 1 < argc) {
                char *end;
                long long n = strtoll(argv[++i], &end, 10);
                if (*end || n <= 0) return usage_err("floe avro rewrite: --block-size needs bytes");
                o.block_size = (size_t)n;
            } else {
                return usage_err("floe avro rewrite: unknown option");
            }
        }
        return cmd_rewrite(argv[2], argv[3], &o);
    }
    return usage_err("floe avro: unknown subcommand or wrong arguments");
}
