/*
 * shell.c — the SQL front of `floe` (see shell.h).
 *
 *   floe                         shell on a terminal; statements from a pipe
 *   floe -c "SQL" [-c ...]       run statements, print results, exit
 *   floe -f file.sql [-f ...]    run a script
 *   --format table|csv|jsonl     result format (table by default)
 *   --warehouse DIR              catalog directory (else $FLOE_WAREHOUSE,
 *                                else ./warehouse)
 *   --catalog FILE               SQLite catalog database kept apart from the
 *                                tables (the warehouse may then be s3://)
 *   --catalog rest:URL           an Iceberg REST catalog, with
 *   --catalog-credential ID:SECRET, --catalog-token T, --catalog-config FILE
 *                                (cli/catalog_config.c)
 *
 * Input is read a line at a time and collected until floe_sql_is_complete
 * says it ends with a whole statement; then that text is executed.  Lines
 * starting with a backslash (when no statement is pending) are shell
 * commands, psql's where floe has the thing: \d \dt \dv \dn
 * (shell_describe.c), \x \t \pset \timing \format \i \o \echo \q \?.
 * Interactive results taller or wider than the terminal go through
 * $FLOE_PAGER / $PAGER (less by default; \pset pager off), as psql does.
 *
 * Errors print as "Error: <message>" on stderr; from a script file as
 * "Error: FILE:LINE[:COLUMN]: <message>".  Scripts (-c, -f, a pipe)
 * stop at the first error with exit status 1; the interactive shell goes
 * on.  Ctrl-C while a statement runs cancels it (floe_session_cancel is
 * async-signal-safe) and the shell returns to its prompt; a second Ctrl-C
 * before the statement stops ends the program.  At the prompt Ctrl-C
 * discards the lines typed so far.
 */
#include "cli/shell.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buffer.h"
#include "cli/catalog_config.h"
#include "cli/shell_complete.h"
#include "cli/shell_describe.h"
#include "cli/sql_output.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe/version.h"

#ifdef FLOE_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#define PROMPT "floe> "
#define PROMPT_MORE "  ...> "
#define HISTORY_FILE ".floe_history"
#define HISTORY_LINES 1000

/* The signal handler's view of the shell.  Written by the main thread
 * before the handler is installed (g_session) or as plain flags. */
static floe_session *volatile g_session;
static volatile sig_atomic_t g_running;    /* a statement is executing */
static volatile sig_atomic_t g_interrupts; /* Ctrl-C presses not yet handled */

static void on_sigint(int sig) {
    (void)sig;
    if (g_running) {
        if (g_interrupts++ > 0) {
            /* The statement did not stop after the first request. */
            static const char msg[] = "\nfloe: interrupted twice, exiting\n";
            ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
            (void)w;
            _exit(130);
        }
        if (g_session) floe_session_cancel(g_session);
    } else {
        g_interrupts++;
    }
}

static void install_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns EINTR */
    sigaction(SIGINT, &sa, NULL);
}

/* ------------------------------------------------------------------ state */

typedef struct shell {
    floe_session *session;
    floe_cli_output out;
    floe_result_sink sink;
    bool timing;
    bool interactive;
    bool quit;
    bool pager_wanted; /* \pset pager (on by default, as psql) */
    char *null_text;   /* \pset null, owned */
} shell;

/* Print an error.  From a script file it names the file and the line:
 * the statement's first line, or the line the message points at (the
 * parser's "line N, column M: ..." counts from the statement's start). */
static void print_error(const char *msg, const char *file, int64_t line) {
    if (!file) {
        fprintf(stderr, "Error: %s\n", msg);
        return;
    }
    long n = 0, col = 0;
    int used = 0;
    if (sscanf(msg, "line %ld, column %ld: %n", &n, &col, &used) == 2 && used > 0 && n >= 1) {
        fprintf(stderr, "Error: %s:%lld:%ld: %s\n", file, (long long)(line + n - 1), col, msg + used);
        return;
    }
    fprintf(stderr, "Error: %s:%lld: %s\n", file, (long long)line, msg);
}

/* Run `sql` (one or more statements); `file` and `line` say where a
 * script's statement starts (NULL: not from a file).  Returns false on
 * error (printed). */
static bool run_sql_at(shell *sh, const char *sql, const char *file, int64_t line) {
    floe_cli_output_start(&sh->out);
    double t0 = floe_cli_now();
    g_interrupts = 0;
    g_running = 1;
    floe_status st = floe_session_execute(sh->session, sql, &sh->sink);
    g_running = 0;
    g_interrupts = 0;
    double ms = (floe_cli_now() - t0) * 1000.0;
    floe_cli_output_finish(&sh->out);
    floe_cli_complete_invalidate(); /* the statement may have made or dropped names */
    if (st) {
        fflush(stdout);
        fflush(sh->out.out);
        print_error(floe_status_message(st), file, line);
        floe_status_free(st);
    }
    if (sh->timing) {
        printf(ms < 1.0 ? "Time: %.3f ms\n" : "Time: %.1f ms\n", ms);
        fflush(stdout);
    }
    return st == NULL;
}

static bool run_sql(shell *sh, const char *sql) { return run_sql_at(sh, sql, NULL, 0); }

/* -------------------------------------------------------- shell commands */

static void print_help(FILE *out) {
    fputs("Statements end with a semicolon; a statement may span lines.\n"
          "\n"
          "Shell commands:\n"
          "  \\d [NAME]                list tables and views, or describe NAME\n"
          "  \\dt [PATTERN]            list tables (PATTERN: name, schema.name, * and ?)\n"
          "  \\dv [PATTERN]            list views\n"
          "  \\dn [PATTERN]            list schemas\n"
          "  \\x [on|off]              expanded display: one line per column\n"
          "  \\t [on|off]              rows only (no header or footer)\n"
          "  \\pset NAME [VALUE]       format, null, expanded, tuples_only, footer, pager\n"
          "  \\timing [on|off]         show how long each statement takes\n"
          "  \\format table|csv|jsonl  how results are printed\n"
          "  \\i FILE                  run the statements in FILE\n"
          "  \\o [FILE]                send results to FILE (none: back to the screen)\n"
          "  \\echo TEXT               print TEXT\n"
          "  \\q                       quit (also Ctrl-D)\n"
          "  \\?                       this help\n"
          "\n"
          "Ctrl-C cancels the running statement.\n"
          "\n"
          "Try: SELECT * FROM generate_series(1, 5);  SHOW TABLES;  DESCRIBE t;\n"
          "     SELECT * FROM iceberg_scan('path/to/table');\n", out);
}

/* A shell command's words: blanks separate them; 'single quotes' keep
 * blanks (a doubled '' is a quote), as psql reads them. */
#define MAX_WORDS 8
typedef struct words {
    char buf[1024];
    char *w[MAX_WORDS];
    int n;
    bool too_many;
} words;

static void split_words(const char *line, words *out) {
    memset(out, 0, sizeof *out);
    char *d = out->buf, *end = out->buf + sizeof out->buf - 1;
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) break;
        if (out->n == MAX_WORDS) {
            out->too_many = true;
            return;
        }
        out->w[out->n++] = d;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && d < end) {
            if (*p == '\'') {
                for (p++; *p && d < end; p++) {
                    if (*p == '\'' && p[1] == '\'') *d++ = *p++;
                    else if (*p == '\'') break;
                    else *d++ = *p;
                }
                if (*p == '\'') p++;
            } else {
                *d++ = *p++;
            }
        }
        *d++ = 0;
        if (d >= end) break;
    }
}

/* An on/off value: NULL toggles. */
static bool parse_switch(const char *cmd, const char *arg, bool *v) {
    if (!arg) *v = !*v;
    else if (!strcmp(arg, "on") || !strcmp(arg, "true") || !strcmp(arg, "1")) *v = true;
    else if (!strcmp(arg, "off") || !strcmp(arg, "false") || !strcmp(arg, "0")) *v = false;
    else {
        fprintf(stderr, "Error: %s takes on or off, not '%s'\n", cmd, arg);
        return false;
    }
    return true;
}

static bool run_file(shell *sh, const char *path);

static bool set_output_file(shell *sh, const char *path) {
    if (sh->out.out != stdout) fclose(sh->out.out);
    sh->out.out = stdout;
    sh->out.pager = sh->pager_wanted && isatty(STDOUT_FILENO);
    if (!path) return true;
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "Error: cannot open '%s': %s\n", path, strerror(errno));
        return false;
    }
    sh->out.out = fp;
    sh->out.pager = false;
    return true;
}

/* \pset NAME [VALUE]: psql's printing settings that floe has. */
static bool run_pset(shell *sh, const char *name, const char *value) {
    floe_cli_output *o = &sh->out;
    if (!name) {
        static const char *formats[] = {"table", "csv", "jsonl"};
        printf("expanded    %s\nfooter      %s\nformat      %s\nnull        '%s'\npager       %s\n"
               "tuples_only %s\n",
               o->expanded ? "on" : "off", o->no_footer ? "off" : "on", formats[o->format],
               o->null_text ? o->null_text : "NULL", sh->pager_wanted ? "on" : "off", o->tuples_only ? "on" : "off");
        return true;
    }
    bool ok = true;
    if (!strcmp(name, "format")) {
        if (!value) {
            fprintf(stderr, "Error: \\pset format needs a value: table, csv or jsonl\n");
            return false;
        }
        floe_print_format f;
        /* psql's names for the table format too */
        floe_status st = !strcmp(value, "aligned") ? (f = FLOE_PRINT_TABLE, NULL) : floe_print_format_parse(value, &f);
        if (st) {
            fprintf(stderr, "Error: %s\n", floe_status_message(st));
            floe_status_free(st);
            return false;
        }
        o->format = f;
    } else if (!strcmp(name, "null")) {
        free(sh->null_text);
        sh->null_text = value ? strdup(value) : NULL;
        o->null_text = sh->null_text;
    } else if (!strcmp(name, "expanded") || !strcmp(name, "x")) {
        ok = parse_switch("\\pset expanded", value, &o->expanded);
    } else if (!strcmp(name, "tuples_only") || !strcmp(name, "t")) {
        ok = parse_switch("\\pset tuples_only", value, &o->tuples_only);
    } else if (!strcmp(name, "footer")) {
        bool on = !o->no_footer;
        ok = parse_switch("\\pset footer", value, &on);
        o->no_footer = !on;
    } else if (!strcmp(name, "pager")) {
        ok = parse_switch("\\pset pager", value, &sh->pager_wanted);
        o->pager = sh->pager_wanted && o->out == stdout && isatty(STDOUT_FILENO);
    } else {
        fprintf(stderr, "Error: \\pset: unknown option '%s' (format, null, expanded, tuples_only, footer, pager)\n",
                name);
        return false;
    }
    return ok;
}

/* `line` starts with a backslash.  Returns false on a bad command. */
static bool run_command(shell *sh, const char *line) {
    words w;
    split_words(line, &w);
    if (!w.n) return true;
    const char *cmd = w.w[0], *arg = w.n > 1 ? w.w[1] : NULL;
    if (w.too_many) {
        fprintf(stderr, "Error: too many arguments to %s\n", cmd);
        return false;
    }
    /* commands that take one argument at most */
    int max_args = !strcmp(cmd, "\\pset") ? 2 : !strcmp(cmd, "\\echo") ? MAX_WORDS : 1;
    if (w.n - 1 > max_args) {
        fprintf(stderr, "Error: too many arguments to %s\n", cmd);
        return false;
    }
    if (!strcmp(cmd, "\\q") || !strcmp(cmd, "\\quit")) {
        sh->quit = true;
        return true;
    }
    if (!strcmp(cmd, "\\?") || !strcmp(cmd, "\\help") || !strcmp(cmd, "\\h")) {
        print_help(stdout);
        return true;
    }
    if (!strcmp(cmd, "\\timing")) {
        if (!parse_switch(cmd, arg, &sh->timing)) return false;
        if (sh->interactive) printf("Timing is %s.\n", sh->timing ? "on" : "off");
        return true;
    }
    if (!strcmp(cmd, "\\x")) {
        if (!parse_switch(cmd, arg, &sh->out.expanded)) return false;
        if (sh->interactive) printf("Expanded display is %s.\n", sh->out.expanded ? "on" : "off");
        return true;
    }
    if (!strcmp(cmd, "\\t")) {
        if (!parse_switch(cmd, arg, &sh->out.tuples_only)) return false;
        if (sh->interactive) printf("Tuples only is %s.\n", sh->out.tuples_only ? "on" : "off");
        return true;
    }
    if (!strcmp(cmd, "\\pset")) return run_pset(sh, arg, w.n > 2 ? w.w[2] : NULL);
    if (!strcmp(cmd, "\\echo")) {
        for (int i = 1; i < w.n; i++) fprintf(sh->out.out, "%s%s", i > 1 ? " " : "", w.w[i]);
        fputc('\n', sh->out.out);
        fflush(sh->out.out);
        return true;
    }
    if (!strcmp(cmd, "\\o") || !strcmp(cmd, "\\out")) return set_output_file(sh, arg);
    if (!strcmp(cmd, "\\i") || !strcmp(cmd, "\\include")) {
        if (!arg) {
            fprintf(stderr, "Error: \\i needs a file name\n");
            return false;
        }
        return run_file(sh, arg);
    }
    if (!strcmp(cmd, "\\d") || !strcmp(cmd, "\\dt") || !strcmp(cmd, "\\dv") || !strcmp(cmd, "\\dn")) {
        floe_status st = floe_cli_describe(sh->session, &sh->out, cmd, arg);
        if (st) {
            fflush(sh->out.out);
            fprintf(stderr, "Error: %s\n", floe_status_message(st));
            floe_status_free(st);
            return false;
        }
        return true;
    }
    if (!strcmp(cmd, "\\format")) {
        if (!arg) {
            static const char *names[] = {"table", "csv", "jsonl"};
            printf("Format is %s.\n", names[sh->out.format]);
            return true;
        }
        return run_pset(sh, "format", arg);
    }
    fprintf(stderr, "Error: unknown command %s (try \\?)\n", cmd);
    return false;
}

/* ----------------------------------------------------------- line input */

/* Where lines come from: a FILE (script, pipe, or a terminal without
 * libedit) or libedit. */
typedef struct line_source {
    FILE *fp;           /* NULL: libedit on stdin */
    const char *name;   /* for error messages */
    char *line;         /* getline's buffer */
    size_t cap;
    const char *file;   /* a script file's name (errors name it), else NULL */
    int64_t lineno;     /* lines read so far */
} line_source;

typedef enum { LINE_OK, LINE_EOF, LINE_INTERRUPTED, LINE_ERROR } line_result;

/* Read one line (without its newline) into *out (borrowed until the next
 * call), showing `prompt` when interactive. */
static line_result read_line(shell *sh, line_source *src, const char *prompt, const char **out) {
#ifdef FLOE_HAVE_LIBEDIT
    if (!src->fp) {
        free(src->line);
        src->line = NULL;
        g_interrupts = 0;
        char *l = readline(prompt);
        if (g_interrupts) {
            free(l);
            return LINE_INTERRUPTED;
        }
        if (!l) return LINE_EOF;
        src->lineno++;
        src->line = l;
        *out = l;
        return LINE_OK;
    }
#endif
    if (sh->interactive) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    g_interrupts = 0;
    errno = 0;
    ssize_t n = getline(&src->line, &src->cap, src->fp);
    if (n < 0) {
        if (errno == EINTR || g_interrupts) {
            clearerr(src->fp);
            return LINE_INTERRUPTED;
        }
        if (ferror(src->fp)) return LINE_ERROR;
        return LINE_EOF;
    }
    while (n > 0 && (src->line[n - 1] == '\n' || src->line[n - 1] == '\r')) src->line[--n] = 0;
    src->lineno++;
    *out = src->line;
    return LINE_OK;
}

static bool is_blank(const char *s) {
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return false;
    return true;
}

#ifdef FLOE_HAVE_LIBEDIT
static void history_path(char *out, size_t cap) {
    const char *home = getenv("HOME");
    if (home && *home) snprintf(out, cap, "%s/%s", home, HISTORY_FILE);
    else out[0] = 0;
}

/* One history entry per statement, its lines joined by spaces. */
static void remember(const char *text) {
    char *copy = strdup(text);
    if (!copy) return;
    for (char *p = copy; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    add_history(copy);
    free(copy);
}
#endif

/* Read statements from `src` and run them.  Returns false when a script
 * (non-interactive input) hit an error. */
static bool run_lines(shell *sh, line_source *src) {
    floe_buf pending = FLOE_BUF_INIT;
    bool ok = true;
    int64_t first_line = 0; /* where the pending statement starts */
    while (!sh->quit) {
        const char *line = NULL;
        line_result r = read_line(sh, src, pending.len ? PROMPT_MORE : PROMPT, &line);
        if (r == LINE_INTERRUPTED) {
            if (!sh->interactive) {
                ok = false;
                break;
            }
            /* Discard what was typed, back to a fresh prompt. */
            floe_buf_clear(&pending);
            fputs("\n", stdout);
            continue;
        }
        if (r == LINE_ERROR) {
            fprintf(stderr, "Error: reading %s: %s\n", src->name, strerror(errno));
            ok = false;
            break;
        }
        if (r == LINE_EOF) break;
        if (!pending.len) {
            const char *p = line;
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '\\') {
#ifdef FLOE_HAVE_LIBEDIT
                if (!src->fp) remember(p);
#endif
                if (!run_command(sh, p) && !sh->interactive) {
                    ok = false;
                    break;
                }
                continue;
            }
            /* blank and comment-only lines before a statement are not
             * part of it: its errors count lines from its first word */
            if (is_blank(line) || (p[0] == '-' && p[1] == '-')) continue;
            first_line = src->lineno;
        }
        floe_status st = floe_buf_append_str(&pending, line);
        if (!st) st = floe_buf_append_byte(&pending, '\n');
        if (st) {
            fprintf(stderr, "Error: %s\n", floe_status_message(st));
            floe_status_free(st);
            ok = false;
            break;
        }
        if (!floe_sql_is_complete(floe_buf_cstr(&pending))) continue;
#ifdef FLOE_HAVE_LIBEDIT
        if (!src->fp) remember(floe_buf_cstr(&pending));
#endif
        bool good = run_sql_at(sh, floe_buf_cstr(&pending), src->file, first_line);
        floe_buf_clear(&pending);
        if (!good && !sh->interactive) {
            ok = false;
            break;
        }
    }
    /* A script may end without a final semicolon: run what is left. */
    if (ok && !sh->quit && pending.len && !is_blank(floe_buf_cstr(&pending)))
        ok = run_sql_at(sh, floe_buf_cstr(&pending), src->file, first_line) || sh->interactive;
    if (sh->interactive && !sh->quit) fputs("\n", stdout);
    floe_buf_free(&pending);
    return ok;
}

static bool run_stdin(shell *sh) {
    line_source src = {stdin, "standard input", NULL, 0, NULL, 0};
#ifdef FLOE_HAVE_LIBEDIT
    char hist[4096];
    if (sh->interactive) {
        src.fp = NULL;
        /* Our SIGINT handler, not libedit's: Ctrl-C must reach us. */
        rl_catch_signals = 0;
        rl_readline_name = "floe";
        history_path(hist, sizeof hist);
        stifle_history(HISTORY_LINES);
        if (hist[0]) read_history(hist);
        floe_cli_complete_install(sh->session);
    }
#endif
    if (sh->interactive)
        printf("floe %s — type \\? for help, \\q to quit\n", FLOE_VERSION_STRING);
    bool ok = run_lines(sh, &src);
#ifdef FLOE_HAVE_LIBEDIT
    if (sh->interactive && hist[0]) write_history(hist);
    floe_cli_complete_free();
#endif
    free(src.line);
    return ok;
}

static bool run_file(shell *sh, const char *path) {
    if (!strcmp(path, "-")) {
        /* -f -: a script on standard input, never interactive */
        line_source in = {stdin, "standard input", NULL, 0, NULL, 0};
        bool saved = sh->interactive;
        sh->interactive = false;
        bool ok = run_lines(sh, &in);
        sh->interactive = saved;
        free(in.line);
        return ok;
    }
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "Error: cannot open '%s': %s\n", path, strerror(errno));
        return false;
    }
    line_source src = {fp, path, NULL, 0, path, 0};
    bool saved = sh->interactive;
    sh->interactive = false;
    bool ok = run_lines(sh, &src);
    sh->interactive = saved;
    free(src.line);
    fclose(fp);
    return ok;
}

/* ------------------------------------------------------------- arguments */

void floe_cli_sql_usage(FILE *out) {
    fputs("SQL:\n"
          "  floe                     interactive shell (statements from a pipe when\n"
          "                           stdin is not a terminal)\n"
          "  floe -c SQL              run SQL (repeatable; in order)\n"
          "  floe -f FILE             run the statements in FILE (repeatable; - is stdin)\n"
          "  --format table|csv|jsonl result format (default table)\n"
          "  --memory-limit SIZE      what one query may hold ('4GB', '256MB', '80%';\n"
          "                           default 80% of RAM; SET memory_limit)\n"
          "  --warehouse DIR          catalog and table directory (default\n"
          "                           $FLOE_WAREHOUSE, else ./warehouse)\n"
          "  --catalog FILE           the SQLite catalog database, apart from the\n"
          "                           tables (then --warehouse may be s3://...)\n"
          "  --catalog rest:URL       an Iceberg REST catalog (--warehouse is then\n"
          "                           its warehouse property)\n"
          "  --catalog-credential ID:SECRET  OAuth2 client credentials for it\n"
          "                           (or $FLOE_CATALOG_CREDENTIAL)\n"
          "  --catalog-token TOKEN    a static bearer token (or $FLOE_CATALOG_TOKEN)\n"
          "  --catalog-config FILE    catalog properties: a JSON object or key=value\n"
          "                           lines (uri, credential, token, warehouse, scope,\n"
          "                           oauth2-server-uri, rest.tls-verify, rest.ca-file,\n"
          "                           header.NAME, ...); keeps secrets out of ps\n"
          "A script stops at its first error and floe exits with status 1.\n", out);
}

typedef struct action {
    char kind; /* 'c' or 'f' */
    const char *arg;
} action;

/* "--name value" or "--name=value"; advances *i past a separate value. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != 0) return NULL;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

int floe_cli_sql_main(int argc, char **argv) {
    action *acts = calloc((size_t)argc + 1, sizeof *acts);
    if (!acts) {
        fputs("floe: out of memory\n", stderr);
        return 1;
    }
    int n_acts = 0;
    floe_cli_catalog_args cat_args;
    memset(&cat_args, 0, sizeof cat_args);
    floe_print_format format = FLOE_PRINT_TABLE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if ((!strcmp(a, "-c") || !strcmp(a, "-f")) && i + 1 < argc) {
            acts[n_acts].kind = a[1];
            acts[n_acts++].arg = argv[++i];
        } else if ((v = option_value(argc, argv, &i, "--warehouse"))) {
            cat_args.warehouse = v;
        } else if ((v = option_value(argc, argv, &i, "--catalog-credential"))) {
            cat_args.credential = v;
        } else if ((v = option_value(argc, argv, &i, "--catalog-token"))) {
            cat_args.token = v;
        } else if ((v = option_value(argc, argv, &i, "--memory-limit"))) {
            floe_status st = floe_session_set_default_memory_limit(v);
            if (st) {
                fprintf(stderr, "floe: --memory-limit: %s\n", floe_status_message(st));
                floe_status_free(st);
                free(acts);
                return 2;
            }
        } else if ((v = option_value(argc, argv, &i, "--catalog-config"))) {
            cat_args.config_file = v;
        } else if ((v = option_value(argc, argv, &i, "--catalog"))) {
            cat_args.catalog = v;
        } else if ((v = option_value(argc, argv, &i, "--format"))) {
            floe_status st = floe_print_format_parse(v, &format);
            if (st) {
                fprintf(stderr, "floe: %s\n", floe_status_message(st));
                floe_status_free(st);
                free(acts);
                return 2;
            }
        } else {
            if (a[0] == '-')
                fprintf(stderr, "floe: unknown or incomplete option '%s' (try 'floe --help')\n", a);
            else
                fprintf(stderr, "floe: unknown command '%s' (try 'floe --help')\n", a);
            free(acts);
            return 2;
        }
    }

    /* A script that cannot be read fails before the catalog is opened (and
     * a warehouse directory made for nothing). */
    for (int k = 0; k < n_acts; k++) {
        if (acts[k].kind != 'f' || !strcmp(acts[k].arg, "-")) continue;
        FILE *fp = fopen(acts[k].arg, "r");
        if (!fp) {
            fprintf(stderr, "Error: cannot open '%s': %s\n", acts[k].arg, strerror(errno));
            free(acts);
            return 1;
        }
        fclose(fp);
    }

    shell sh;
    memset(&sh, 0, sizeof sh);
    sh.interactive = n_acts == 0 && isatty(STDIN_FILENO);
    floe_cli_output_init(&sh.out, format, stdout, isatty(STDERR_FILENO));
    /* long results through a pager, in the interactive shell on a terminal */
    sh.pager_wanted = true;
    sh.out.pager = sh.interactive && isatty(STDOUT_FILENO);
    /* Tags ("DELETE 3") as psql prints them: always in the table format
     * (also for -c / -f and pipes), in csv / jsonl only at a terminal, so
     * machine-read output stays rows only. */
    sh.out.tags = sh.interactive || format == FLOE_PRINT_TABLE;
    floe_cli_output_sink(&sh.out, &sh.sink);
    /* --catalog FILE keeps the SQLite database apart from the tables, which
     * may then live on object storage (--warehouse s3://bucket/prefix);
     * --catalog rest:URL is a REST catalog (cli/catalog_config.c). */
    floe_cli_catalog cat;
    floe_status st = floe_cli_catalog_resolve(&cat_args, &cat);
    if (!st) st = floe_session_open_catalog(cat.uri, cat.props, cat.n_props, &sh.session);
    floe_cli_catalog_free(&cat);
    if (st) {
        fprintf(stderr, "Error: %s\n", floe_status_message(st));
        floe_status_free(st);
        free(acts);
        return 1;
    }
    g_session = sh.session;
    install_sigint();

    bool ok = true;
    for (int k = 0; k < n_acts && ok && !sh.quit; k++) {
        const char *a = acts[k].arg;
        size_t lead = strspn(a, " \t");
        if (acts[k].kind == 'f') ok = run_file(&sh, a);
        else if (a[lead] == '\\') ok = run_command(&sh, a + lead);
        else ok = run_sql(&sh, a);
    }
    if (n_acts == 0) ok = run_stdin(&sh);

    signal(SIGINT, SIG_DFL);
    g_session = NULL;
    if (sh.out.out != stdout) fclose(sh.out.out);
    floe_cli_output_free(&sh.out);
    free(sh.null_text);
    floe_session_close(sh.session);
    free(acts);
    return ok ? 0 : 1;
}
