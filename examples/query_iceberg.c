/*
 * query_iceberg.c — floe embedded in a C program through libfloe.
 *
 * Opens (or creates) a warehouse, writes an Iceberg table with SQL, runs a
 * query over it (one with a bound parameter too) and prints the rows it
 * reads from the Arrow C stream — bigint and string columns, read straight
 * from the Arrow buffers.
 *
 * Build against an installed floe:
 *   cc query_iceberg.c $(pkg-config --cflags --libs floe) -o query_iceberg
 *   ./query_iceberg /tmp/warehouse
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <floe/floe.h>

/* Print an error and free it; returns 1 when there was one. */
static int failed(floe_status st, const char *what) {
    if (!st) return 0;
    fprintf(stderr, "%s: %s: %s\n", what, floe_code_name(floe_status_code(st)), floe_status_message(st));
    floe_status_free(st);
    return 1;
}

/* One value of an Arrow array of format "l" (int64) or "u" (utf8). */
static void print_value(const struct ArrowSchema *type, const struct ArrowArray *a, int64_t row) {
    int64_t i = a->offset + row;
    const uint8_t *valid = a->buffers[0];
    if (valid && !(valid[i / 8] >> (i % 8) & 1)) {
        printf("NULL");
    } else if (type->format[0] == 'l') {
        printf("%" PRId64, ((const int64_t *)a->buffers[1])[i]);
    } else if (type->format[0] == 'u') {
        const int32_t *off = a->buffers[1];
        printf("%.*s", (int)(off[i + 1] - off[i]), (const char *)a->buffers[2] + off[i]);
    } else {
        printf("<%s>", type->format);
    }
}

/* Print a result stream as a header and "a | b" rows, then release it. */
static int print_stream(struct ArrowArrayStream *s) {
    struct ArrowSchema schema;
    if (s->get_schema(s, &schema) != 0) {
        fprintf(stderr, "get_schema: %s\n", s->get_last_error(s));
        s->release(s);
        return 1;
    }
    for (int64_t c = 0; c < schema.n_children; c++) printf("%s%s", c ? " | " : "", schema.children[c]->name);
    printf("\n");
    int rc = 0;
    for (;;) {
        struct ArrowArray batch;
        if (s->get_next(s, &batch) != 0) {
            fprintf(stderr, "get_next: %s\n", s->get_last_error(s));
            rc = 1;
            break;
        }
        if (!batch.release) break; /* end of the stream */
        for (int64_t r = 0; r < batch.length; r++) {
            for (int64_t c = 0; c < batch.n_children; c++) {
                if (c) printf(" | ");
                print_value(schema.children[c], batch.children[c], r);
            }
            printf("\n");
        }
        batch.release(&batch);
    }
    schema.release(&schema);
    s->release(s);
    return rc;
}

int main(int argc, char **argv) {
    const char *warehouse = argc > 1 ? argv[1] : "warehouse";
    floe_database *db = NULL;
    floe_connection *conn = NULL;
    if (failed(floe_database_open(warehouse, NULL, 0, &db), "open") || failed(floe_connect(db, &conn), "connect"))
        return 1;
    printf("floe %s\n", floe_library_version());

    /* An Iceberg table, partitioned, written with SQL. */
    int rc = failed(floe_query(conn,
                               "CREATE TABLE IF NOT EXISTS cities (id bigint, name string, country string) "
                               "PARTITIONED BY (country);"
                               "DELETE FROM cities;"
                               "INSERT INTO cities VALUES (1, 'Lisbon', 'PT'), (2, 'Porto', 'PT'), "
                               "(3, 'Oslo', 'NO'), (4, NULL, 'NO')",
                               NULL),
                    "create");
    if (!rc) printf("%s\n", floe_last_tag(conn));

    struct ArrowArrayStream out;
    if (!rc) rc = failed(floe_query(conn, "SELECT id, name, country FROM cities ORDER BY id", &out), "query");
    if (!rc) rc = print_stream(&out);

    /* A prepared statement with a parameter. */
    floe_prepared *p = NULL;
    if (!rc) rc = failed(floe_prepare(conn, "SELECT count(*) AS n FROM cities WHERE country = $1", &p), "prepare");
    if (!rc) rc = failed(floe_bind_text(p, 1, "PT"), "bind");
    if (!rc) rc = failed(floe_execute(p, &out), "execute");
    if (!rc) rc = print_stream(&out);
    floe_prepared_free(p);

    /* An error comes back as a code and a message. */
    if (!rc) {
        floe_status st = floe_query(conn, "SELECT * FROM no_such_table", NULL);
        printf("error: %s\n", floe_code_name(floe_status_code(st)));
        floe_status_free(st);
    }

    floe_disconnect(conn);
    floe_database_close(db);
    return rc;
}
