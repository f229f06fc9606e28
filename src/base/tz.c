/*
 * tz.c — TZif files and POSIX TZ rules (see tz.h).
 */
#include "base/tz.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/memory.h"

typedef struct posix_rule {
    bool has_dst;
    int64_t std_off, dst_off;   /* seconds east of UTC */
    /* start/end: kind 'M' (month, week, day), 'J' (1..365 no Feb 29), 'N' (0..365) */
    char kind[2];
    int m[2], w[2], d[2], n[2];
    int64_t time[2];            /* seconds after local midnight */
} posix_rule;

struct floe_tz {
    char *name;
    bool utc;
    int64_t *trans;     /* transition instants */
    uint8_t *idx;       /* type index per transition */
    int32_t *offs;      /* utoff per type */
    int ntrans, ntypes;
    int32_t first_off;  /* before the first transition */
    bool has_rule;
    posix_rule rule;
};

int64_t floe_tz_days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static void year_of(int64_t t, int64_t *y) {
    int64_t z = (t >= 0 ? t : t - 86399) / 86400 + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (m <= 2);
}

/* --------------------------------------------------------- POSIX rules */

static const char *parse_name(const char *p) {
    if (*p == '<') {
        while (*p && *p != '>') p++;
        return *p ? p + 1 : NULL;
    }
    const char *s = p;
    while (isalpha((unsigned char)*p)) p++;
    return p - s >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] into seconds */
static const char *parse_hms(const char *p, int64_t *out) {
    int sign = 1;
    if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*p)) return NULL;
    int64_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) v[i] = v[i] * 10 + (*p++ - '0');
        if (v[i] > 1000) return NULL;
        if (*p != ':') break;
        p++;
    }
    *out = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
    return p;
}

static const char *parse_date(const char *p, posix_rule *r, int i) {
    r->time[i] = 7200;
    if (*p == 'M') {
        r->kind[i] = 'M';
        char *e;
        r->m[i] = (int)strtol(p + 1, &e, 10);
        if (*e != '.') return NULL;
        r->w[i] = (int)strtol(e + 1, &e, 10);
        if (*e != '.') return NULL;
        r->d[i] = (int)strtol(e + 1, &e, 10);
        p = e;
        if (r->m[i] < 1 || r->m[i] > 12 || r->w[i] < 1 || r->w[i] > 5 || r->d[i] < 0 || r->d[i] > 6)
            return NULL;
    } else {
        r->kind[i] = *p == 'J' ? 'J' : 'N';
        if (*p == 'J') p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        char *e;
        r->n[i] = (int)strtol(p, &e, 10);
        p = e;
        if (r->n[i] < 0 || r->n[i] > 365) return NULL;
    }
    if (*p == '/') {
        p = parse_hms(p + 1, &r->time[i]);
        if (!p) return NULL;
    }
    return p;
}

static bool parse_rule(const char *p, posix_rule *r) {
    memset(r, 0, sizeof *r);
    p = parse_name(p);
    if (!p) return false;
    int64_t off;
    p = parse_hms(p, &off);
    if (!p) return false;
    r->std_off = -off;
    if (!*p) return true;
    p = parse_name(p);
    if (!p) return false;
    r->dst_off = r->std_off + 3600;
    if (*p && *p != ',') {
        p = parse_hms(p, &off);
        if (!p) return false;
        r->dst_off = -off;
    }
    if (*p != ',') return false;
    p = parse_date(p + 1, r, 0);
    if (!p || *p != ',') return false;
    p = parse_date(p + 1, r, 1);
    if (!p || *p) return false;
    r->has_dst = true;
    return true;
}

/* Local seconds since the epoch at which rule date i falls in year y. */
static int64_t rule_local(const posix_rule *r, int i, int64_t y) {
    int64_t day;
    if (r->kind[i] == 'M') {
        static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t first = floe_tz_days_from_civil(y, (unsigned)r->m[i], 1);
        int wd = (int)(((first + 4) % 7 + 7) % 7);
        int dom = 1 + (r->d[i] - wd + 7) % 7 + 7 * (r->w[i] - 1);
        int dim = mdays[r->m[i] - 1] + (r->m[i] == 2 && is_leap(y));
        while (dom > dim) dom -= 7;
        day = first + dom - 1;
    } else if (r->kind[i] == 'J') {
        int n = r->n[i];
        day = floe_tz_days_from_civil(y, 1, 1) + n - 1 + (is_leap(y) && n >= 60);
    } else {
        day = floe_tz_days_from_civil(y, 1, 1) + r->n[i];
    }
    return day * 86400 + r->time[i];
}

static int64_t rule_offset(const posix_rule *r, int64_t t) {
    if (!r->has_dst) return r->std_off;
    int64_t y;
    year_of(t + r->std_off, &y);
    int64_t start = rule_local(r, 0, y) - r->std_off;   /* DST starts (std local time) */
    int64_t end = rule_local(r, 1, y) - r->dst_off;     /* DST ends (dst local time) */
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? r->dst_off : r->std_off;
}

/* ------------------------------------------------------------- TZif */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static floe_status bad_tzif(const char *name, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "time zone '%s': TZif file %s", name, what);
}

static floe_status parse_tzif(floe_tz *tz, const uint8_t *d, size_t n) {
    if (n < 44 || memcmp(d, "TZif", 4) != 0) return bad_tzif(tz->name, "has no TZif header");
    int version = d[4] ? d[4] - '0' : 1;
    const uint8_t *h = d;
    size_t tsize = 4;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t isut = be32(h + 20), isstd = be32(h + 24), leap = be32(h + 28),
                 timecnt = be32(h + 32), typecnt = be32(h + 36), charcnt = be32(h + 40);
        if (timecnt > 100000 || typecnt == 0 || typecnt > 256 || leap > 10000 || charcnt > 100000 ||
            isut > 256 || isstd > 256)
            return bad_tzif(tz->name, "has bad counts");
        size_t body = timecnt * tsize + timecnt + typecnt * 6 + charcnt + leap * (tsize + 4) + isstd + isut;
        if ((size_t)(d + n - h) < 44 + body) return bad_tzif(tz->name, "is truncated");
        const uint8_t *p = h + 44;
        if (pass == 0 && version >= 2) {
            h = p + body;
            if ((size_t)(d + n - h) < 44 || memcmp(h, "TZif", 4) != 0)
                return bad_tzif(tz->name, "has no second header");
            tsize = 8;
            continue;
        }
        tz->trans = floe_calloc(timecnt + 1, sizeof *tz->trans);
        tz->idx = floe_calloc(timecnt + 1, 1);
        tz->offs = floe_calloc(typecnt, sizeof *tz->offs);
        if (!tz->trans || !tz->idx || !tz->offs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        for (uint32_t i = 0; i < timecnt; i++) {
            if (tsize == 8) tz->trans[i] = (int64_t)((uint64_t)be32(p + 8 * i) << 32 | be32(p + 8 * i + 4));
            else tz->trans[i] = (int32_t)be32(p + 4 * i);
        }
        p += timecnt * tsize;
        for (uint32_t i = 0; i < timecnt; i++) {
            if (p[i] >= typecnt) return bad_tzif(tz->name, "has a bad type index");
            tz->idx[i] = p[i];
        }
        p += timecnt;
        tz->first_off = INT32_MIN;
        for (uint32_t i = 0; i < typecnt; i++) {
            tz->offs[i] = (int32_t)be32(p + 6 * i);
            if (tz->first_off == INT32_MIN && !p[6 * i + 4]) tz->first_off = tz->offs[i];
        }
        if (tz->first_off == INT32_MIN) tz->first_off = tz->offs[0];
        tz->ntrans = (int)timecnt;
        tz->ntypes = (int)typecnt;
        const uint8_t *foot = h + 44 + body;
        if (tsize == 8 && foot < d + n && *foot == '\n') {
            const uint8_t *e = memchr(foot + 1, '\n', (size_t)(d + n - foot - 1));
            if (e && e > foot + 1) {
                char rule[128];
                size_t rl = (size_t)(e - foot - 1);
                if (rl < sizeof rule) {
                    memcpy(rule, foot + 1, rl);
                    rule[rl] = 0;
                    tz->has_rule = parse_rule(rule, &tz->rule);
                }
            }
        }
        return NULL;
    }
    return NULL;
}

static bool utc_name(const char *n) {
    static const char *const names[] = {"UTC", "GMT", "Z", "Etc/UTC", "Etc/GMT", "UCT",
                                        "Etc/UCT", "Universal", "Zulu", "Etc/Universal",
                                        "Etc/Zulu", "GMT0", "Etc/GMT0", "GMT+0", "GMT-0",
                                        "Etc/GMT+0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(n, names[i])) return true;
    return false;
}

floe_status floe_tz_load(const char *name, floe_tz **out) {
    *out = NULL;
    floe_tz *tz = floe_calloc(1, sizeof *tz);
    if (!tz) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    tz->name = floe_strdup(name);
    if (!tz->name) {
        floe_free(tz);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (!*name || utc_name(name)) {
        tz->utc = true;
        *out = tz;
        return NULL;
    }
    floe_status st = NULL;
    bool ok = strlen(name) < 200 && name[0] != '/' && !strstr(name, "..");
    for (const char *c = name; ok && *c; c++)
        ok = isalnum((unsigned char)*c) || strchr("/_+-", *c);
    if (!ok) {
        st = floe_error(FLOE_ERR_NOT_FOUND, "unknown time zone '%s'", name);
        goto fail;
    }
    const char *dir = getenv("TZDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        st = floe_error(FLOE_ERR_NOT_FOUND, "unknown time zone '%s' (no %s)", name, path);
        goto fail;
    }
    uint8_t *buf = floe_malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, 1 << 20, fp) : 0;
    fclose(fp);
    if (!buf) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
        goto fail;
    }
    st = parse_tzif(tz, buf, n);
    floe_free(buf);
    if (st) goto fail;
    *out = tz;
    return NULL;
fail:
    floe_tz_free(tz);
    return st;
}

void floe_tz_free(floe_tz *tz) {
    if (!tz) return;
    floe_free(tz->name);
    floe_free(tz->trans);
    floe_free(tz->idx);
    floe_free(tz->offs);
    floe_free(tz);
}

static _Thread_local const floe_tz *t_session_tz;

void floe_tz_set_session(const floe_tz *tz) { t_session_tz = tz && !tz->utc ? tz : NULL; }
const floe_tz *floe_tz_session(void) { return t_session_tz; }

const char *floe_tz_name(const floe_tz *tz) { return tz->name; }
bool floe_tz_is_utc(const floe_tz *tz) { return tz->utc; }

int64_t floe_tz_offset_range(const floe_tz *tz, int64_t t, int64_t *from, int64_t *until) {
    *from = INT64_MIN;
    *until = INT64_MAX;
    if (tz->utc) return 0;
    if (tz->has_rule && (tz->ntrans == 0 || t >= tz->trans[tz->ntrans - 1])) {
        const posix_rule *r = &tz->rule;
        if (!r->has_dst) {
            if (tz->ntrans) *from = tz->trans[tz->ntrans - 1];
            return r->std_off;
        }
        int64_t y;
        year_of(t + r->std_off, &y);
        int64_t a = rule_local(r, 0, y) - r->std_off, b = rule_local(r, 1, y) - r->dst_off;
        int64_t lo = a < b ? a : b, hi = a < b ? b : a;
        /* within this year: before, between or after the two changes
         * (a day's margin keeps clear of the year boundary in any zone) */
        int64_t ys = floe_tz_days_from_civil(y, 1, 1) * 86400 + 86400;
        int64_t ye = floe_tz_days_from_civil(y + 1, 1, 1) * 86400 - 86400;
        if (t < lo) *from = ys, *until = lo;
        else if (t < hi) *from = lo, *until = hi;
        else *from = hi, *until = ye;
        if (*from > t) *from = t;
        if (*until <= t) *until = t + 1;
        return rule_offset(r, t);
    }
    if (tz->ntrans == 0) return tz->first_off;
    if (t < tz->trans[0]) {
        *until = tz->trans[0];
        return tz->first_off;
    }
    int lo = 0, hi = tz->ntrans - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tz->trans[mid] <= t) lo = mid;
        else hi = mid - 1;
    }
    *from = tz->trans[lo];
    if (lo + 1 < tz->ntrans) *until = tz->trans[lo + 1];
    else if (tz->has_rule) *until = t + 1; /* the rule takes over: no caching */
    return tz->offs[tz->idx[lo]];
}

int64_t floe_tz_offset(const floe_tz *tz, int64_t t) {
    if (tz->utc) return 0;
    if (tz->ntrans == 0 || t < tz->trans[0]) {
        if (tz->ntrans == 0 && tz->has_rule) return rule_offset(&tz->rule, t);
        return tz->first_off;
    }
    if (t >= tz->trans[tz->ntrans - 1] && tz->has_rule) {
        /* past the table: the footer rule, unless the last transition is later this year */
        return rule_offset(&tz->rule, t);
    }
    int lo = 0, hi = tz->ntrans - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tz->trans[mid] <= t) lo = mid;
        else hi = mid - 1;
    }
    return tz->offs[tz->idx[lo]];
}

/* ------------------------------------------------------- SQL zone names */

/* PostgreSQL 15's default abbreviations (its "Default" set) that floe
 * knows, with their fixed offsets in seconds east.  An abbreviation is a
 * fixed offset even where the zone it comes from keeps daylight time:
 * 'CET' in July is +01, unlike the tzdata zone of that name. */
static const struct {
    const char *name;
    int32_t off;
} k_abbrevs[] = {
    {"UTC", 0},          {"GMT", 0},          {"Z", 0},           {"UT", 0},          {"ZULU", 0},
    {"WET", 0},          {"WEST", 3600},      {"CET", 3600},      {"CEST", 7200},     {"MET", 3600},
    {"MEST", 7200},      {"EET", 7200},       {"EEST", 10800},    {"MSK", 10800},     {"BST", 3600},
    {"EST", -5 * 3600},  {"EDT", -4 * 3600},  {"CST", -6 * 3600}, {"CDT", -5 * 3600}, {"MST", -7 * 3600},
    {"MDT", -6 * 3600},  {"PST", -8 * 3600},  {"PDT", -7 * 3600}, {"AKST", -9 * 3600}, {"AKDT", -8 * 3600},
    {"HST", -10 * 3600}, {"JST", 9 * 3600},   {"KST", 9 * 3600},  {"AEST", 10 * 3600}, {"AEDT", 11 * 3600},
    {"NZST", 12 * 3600}, {"NZDT", 13 * 3600},
};

static floe_status not_recognized(const char *name, size_t len) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "time zone \"%.*s\" not recognized", (int)len, name);
}

static floe_status new_zone(const char *name, floe_tz **out) {
    floe_tz *tz = floe_calloc(1, sizeof *tz);
    if (tz) tz->name = floe_strdup(name);
    if (!tz || !tz->name) {
        floe_free(tz);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *out = tz;
    return NULL;
}

/* `name` with each path component replaced by the directory entry that
 * equals it ignoring case ("europe/berlin" -> "Europe/Berlin"), false when
 * some component matches nothing. */
static bool fold_zone_path(const char *dir, const char *name, char *out, size_t cap) {
    size_t used = 0;
    while (*name) {
        const char *slash = strchr(name, '/');
        size_t n = slash ? (size_t)(slash - name) : strlen(name);
        char base[512];
        snprintf(base, sizeof base, "%s/%.*s", dir, (int)used, out);
        DIR *d = opendir(base);
        if (!d) return false;
        bool found = false;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strlen(e->d_name) == n && !strncasecmp(e->d_name, name, n)) {
                found = used + n + 2 < cap;
                if (found) used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "/" : "", e->d_name);
                break;
            }
        }
        closedir(d);
        if (!found) return false;
        name += n + (slash != NULL);
    }
    return used > 0;
}

floe_status floe_tz_lookup_sql(const char *name, size_t len, floe_tz **out) {
    *out = NULL;
    char z[200];
    if (len == 0 || len >= sizeof z || memchr(name, 0, len)) return not_recognized(name, len);
    memcpy(z, name, len);
    z[len] = 0;
    for (size_t i = 0; i < sizeof k_abbrevs / sizeof *k_abbrevs; i++) {
        if (strcasecmp(z, k_abbrevs[i].name)) continue;
        FLOE_TRY(new_zone(z, out));
        (*out)->utc = k_abbrevs[i].off == 0;
        (*out)->first_off = k_abbrevs[i].off;
        return NULL;
    }
    /* a tzdata name, as spelt or in another letter case */
    floe_status st = floe_tz_load(z, out);
    if (!st) return NULL;
    if (floe_status_code(st) != FLOE_ERR_NOT_FOUND) return st;
    floe_status_free(st);
    const char *dir = getenv("TZDIR");
    char folded[256];
    if (!strstr(z, "..") && z[0] != '/' && fold_zone_path(dir && *dir ? dir : "/usr/share/zoneinfo", z, folded,
                                                          sizeof folded)) {
        st = floe_tz_load(folded, out);
        if (!st) return NULL;
        if (floe_status_code(st) != FLOE_ERR_NOT_FOUND) return st;
        floe_status_free(st);
    }
    /* a POSIX zone; "+02" has no name, which the rule syntax wants */
    char spec[sizeof z + 2];
    snprintf(spec, sizeof spec, "%s%s", (z[0] == '+' || z[0] == '-') ? "<>" : "", z);
    posix_rule r;
    if (!parse_rule(spec, &r)) return not_recognized(name, len);
    FLOE_TRY(new_zone(z, out));
    (*out)->has_rule = true;
    (*out)->rule = r;
    (*out)->first_off = (int32_t)r.std_off;
    return NULL;
}

int64_t floe_tz_local_to_utc(const floe_tz *tz, int64_t local) {
    if (tz->utc) return local;
    /* The offsets a day either side: equal unless a change is near. */
    int64_t before = floe_tz_offset(tz, local - 86400), after = floe_tz_offset(tz, local + 86400);
    if (before == after) {
        int64_t t = local - before;
        int64_t o = floe_tz_offset(tz, t);
        return o == before ? t : local - o; /* two changes within a day: take the offset found */
    }
    int64_t tb = local - before, ta = local - after;
    bool before_ok = floe_tz_offset(tz, tb) == before, after_ok = floe_tz_offset(tz, ta) == after;
    if (before_ok != after_ok) return before_ok ? tb : ta;
    /* skipped (neither) or repeated (both): spring forward reads the time
     * with the earlier offset, fall back with the later one */
    return tb > ta ? tb : ta;
}
