/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The parser of one file of the configuration: its lines read for inih,
 * counted for "FILE:LINE:" in errors, checked for what inih would get
 * wrong; its sections, and the keys of [Daemon], [Class:*] and [Rule:*]
 * (those of the other sections are config-sources.c's and
 * config-hints.c's). */
#include <ini.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "config-internal.h"
#include "config.h"
#include "log.h"
#include "util.h"

static int config_find_rule(const Config *c, const char *name) {
        for (size_t i = 0; i < c->n_rules; i++)
                if (streq(c->rules[i].name, name))
                        return (int) i;
        return -ENOENT;
}

/* Parser state for one file. inih does not pass line numbers to the
 * handler, so the reader counts the lines it hands to inih; inih handles
 * each line right after reading it. */
typedef struct Parser {
        Config *config;
        const char *file;
        FILE *f;
        unsigned line;
        char *error;
        int error_code;
        char **sections_seen;   /* in this file, to catch duplicates */
        size_t n_sections_seen;
} Parser;

static int parser_fail(Parser *p, int code, const char *fmt, ...) _printf_(3, 4);
static int parser_fail(Parser *p, int code, const char *fmt, ...) {
        _cleanup_(freep) char *msg = NULL;
        va_list ap;

        if (p->error)           /* keep the first error only */
                return 0;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        if (asprintf(&p->error, "%s:%u: %s", p->file, p->line, msg ?: "out of memory") < 0)
                p->error = NULL;
        p->error_code = code;
        return 0;               /* makes inih count an error */
}

static bool section_split(const char *section, const char *kind, const char **ret_name) {
        size_t l = strlen(kind);

        if (strncmp(section, kind, l) != 0 || section[l] != ':')
                return false;
        *ret_name = section + l + 1;
        return true;
}

/* Validates a section header when the reader sees it, so that empty and
 * duplicate sections are reported too. */
static int parser_section(Parser *p, const char *section) {
        Config *c = p->config;
        const char *name;
        char **n;

        for (size_t i = 0; i < p->n_sections_seen; i++)
                if (streq(p->sections_seen[i], section)) {
                        if (section_split(section, "Class", &name))
                                return parser_fail(p, -EEXIST, "duplicate class '%s'", name);
                        if (section_split(section, "Rule", &name))
                                return parser_fail(p, -EEXIST, "duplicate rule '%s'", name);
                        return parser_fail(p, -EEXIST, "duplicate section [%s]", section);
                }
        n = realloc(p->sections_seen, (p->n_sections_seen + 1) * sizeof(char *));
        if (!n)
                return parser_fail(p, -ENOMEM, "out of memory");
        p->sections_seen = n;
        n[p->n_sections_seen] = strdup(section);
        if (!n[p->n_sections_seen])
                return parser_fail(p, -ENOMEM, "out of memory");
        p->n_sections_seen++;

        if (streq(section, "Daemon") || streq(section, "Input") || streq(section, "Power") ||
            streq(section, "Sessions") || streq(section, "Launch"))
                return 1;

        if (section_split(section, "Class", &name)) {
                ClassConfig *cc;

                if (!class_name_is_valid(name))
                        return parser_fail(p, -EINVAL,
                                           "invalid class name '%s' (1-31 characters of a-z, 0-9, '_', '-')",
                                           name);
                if (config_find_class(c, name) >= 0)
                        return 1;       /* a drop-in amending an earlier file */
                if (c->n_classes >= GROUPS_MAX)
                        return parser_fail(p, -ENOSPC,
                                           "too many classes: the kernel allows %d groups counting root",
                                           GROUPS_MAX);
                cc = &c->classes[c->n_classes++];
                memset(cc, 0, sizeof(*cc));
                strcpy(cc->name, name);
                return 1;
        }

        if (section_split(section, "Rule", &name)) {
                Rule *r;

                if (name[0] == '\0')
                        return parser_fail(p, -EINVAL, "rule without a name: use [Rule:NAME]");
                if (config_find_rule(c, name) >= 0)
                        return 1;
                r = realloc(c->rules, (c->n_rules + 1) * sizeof(Rule));
                if (!r)
                        return parser_fail(p, -ENOMEM, "out of memory");
                c->rules = r;
                r = &c->rules[c->n_rules];
                memset(r, 0, sizeof(*r));
                r->class_index = -1;
                r->name = strdup(name);
                r->file = strdup(p->file);
                if (!r->name || !r->file) {
                        rule_done(r);
                        return parser_fail(p, -ENOMEM, "out of memory");
                }
                r->section_line = p->line;
                c->n_rules++;
                return 1;
        }

        return parser_fail(p, -EINVAL, "unknown section [%s]", section);
}

static char *parser_reader(char *str, int num, void *stream) {
        Parser *p = stream;
        char *s, *e;

        if (p->error)
                return NULL;    /* stop at the first error */
        if (!fgets(str, num, p->f))
                return NULL;
        p->line++;

        /* A line that does not fit would reach inih in pieces, each
         * read as a line of its own. */
        if (!strchr(str, '\n') && !feof(p->f)) {
                parser_fail(p, -E2BIG, "line longer than %d bytes", num - 2);
                return NULL;
        }
        s = str;
        while (*s == ' ' || *s == '\t')
                s++;
        /* inih takes an indented line after a key as more of its value: an
         * indented "background" under "Class=performance" would silently
         * name another class. Only blank lines may be indented. */
        if (s != str && *s && !strchr("\r\n#;", *s)) {
                parser_fail(p, -EINVAL, "indented line: continuation lines are not supported");
                return NULL;
        }
        if (*s == '[') {
                _cleanup_(freep) char *section = NULL;

                e = strchr(s, ']');
                if (!e) {
                        /* inih would go on in the section before */
                        parser_fail(p, -EBADMSG, "unclosed section header: expected ']'");
                        return NULL;
                }
                section = strndup(s + 1, (size_t) (e - s - 1));
                if (!section)
                        return NULL;
                if (parser_section(p, strstrip(section)) <= 0)
                        return NULL;
        }
        return str;
}

static int set_string(Parser *p, char **field, const char *key, const char *value) {
        char *s;

        if (value[0] == '\0')
                return parser_fail(p, -EINVAL, "%s=: empty value", key);
        s = strdup(value);
        if (!s)
                return parser_fail(p, -ENOMEM, "out of memory");
        free(*field);
        *field = s;
        return 1;
}

/* Where the schedtune hierarchy may be mounted: below /dev, /run or
 * /sys/fs/cgroup (the places cgroup hierarchies live), never on what the
 * system needs there (/dev/shm, /run/user, ...), never elsewhere (the
 * mount step would make the directory in /etc or /usr first). The mount
 * step also refuses a directory that is not empty. */
static bool mount_point_is_allowed(const char *path) {
        static const char *const below[] = { "/dev/", "/run/", "/sys/fs/cgroup/" };
        static const char *const system[] = { "/dev/shm", "/dev/pts", "/dev/mqueue", "/dev/hugepages",
                                              "/run/user", "/run/systemd", "/run/boostd" };

        for (size_t i = 0; i < ELEMENTSOF(system); i++)
                if (strncmp(path, system[i], strlen(system[i])) == 0 &&
                    (path[strlen(system[i])] == '\0' || path[strlen(system[i])] == '/'))
                        return false;
        for (size_t i = 0; i < ELEMENTSOF(below); i++)
                if (strncmp(path, below[i], strlen(below[i])) == 0 && path[strlen(below[i])] != '\0')
                        return true;
        return false;
}

static int parse_daemon_key(Parser *p, const char *key, const char *value) {
        Config *c = p->config;
        unsigned u;
        int r;

        if (streq(key, "Backend")) {
                if (!streq(value, "auto") && !streq(value, "schedtune") && !streq(value, "schedtune2") &&
                    !streq(value, "uclamp") && !streq(value, "none"))
                        return parser_fail(p, -EINVAL,
                                           "Backend=%s: expected auto, schedtune, schedtune2, uclamp or none",
                                           value);
                return set_string(p, &c->backend, key, value);
        }
        if (streq(key, "MountPoint")) {
                if (value[0] != '/' || strstr(value, "..") || strstr(value, "//") || strstr(value, "/./") ||
                    value[strlen(value) - 1] == '/' || (strlen(value) >= 2 && streq(value + strlen(value) - 2, "/.")))
                        return parser_fail(p, -EINVAL, "MountPoint=%s: not a normalized absolute path", value);
                if (!mount_point_is_allowed(value))
                        return parser_fail(p, -EINVAL,
                                           "MountPoint=%s: a system directory, not a place to mount the hierarchy",
                                           value);
                return set_string(p, &c->mount_point, key, value);
        }
        if (streq(key, "UclampGroup")) {
                if (value[0] == '\0') {
                        free(c->uclamp_group);
                        c->uclamp_group = NULL;
                        return 1;
                }
                if (value[0] != '/' || strstr(value, ".."))
                        return parser_fail(p, -EINVAL, "UclampGroup=%s: not an absolute path", value);
                return set_string(p, &c->uclamp_group, key, value);
        }
        if (streq(key, "LogLevel")) {
                r = log_level_from_string(value);
                if (r < 0)
                        return parser_fail(p, -EINVAL,
                                           "LogLevel=%s: expected err, warning, notice, info or debug", value);
                c->log_level = r;
                return 1;
        }
        if (streq(key, "DefaultClass")) {
                if (!class_name_is_valid(value))
                        return parser_fail(p, -EINVAL, "DefaultClass=%s: invalid class name", value);
                r = set_string(p, &c->default_class, key, value);
                if (r > 0)
                        r = set_string(p, &c->default_class_file, key, p->file);
                c->default_class_line = p->line;
                return r;
        }
        if (streq(key, "MaxHoldsPerClient")) {
                r = parse_uint(value, HOLDS_PER_CLIENT_MAX, &u);
                if (r == -ERANGE || (r == 0 && u == 0))
                        return parser_fail(p, -ERANGE, "%s=%s: value out of range 1..%u",
                                           key, value, HOLDS_PER_CLIENT_MAX);
                if (r < 0)
                        return parser_fail(p, -EINVAL, "%s=%s: not a number", key, value);
                c->max_holds_per_client = u;
                return 1;
        }
        if (streq(key, "RestoreOnStop")) {
                if (streq(value, "zero"))
                        c->restore_found = false;
                else if (streq(value, "found"))
                        c->restore_found = true;
                else
                        return parser_fail(p, -EINVAL, "RestoreOnStop=%s: expected zero or found", value);
                return 1;
        }
        return parser_fail(p, -EINVAL, "unknown key '%s' in section [Daemon]", key);
}

static int parse_class_key(Parser *p, const char *section, const char *name,
                           const char *key, const char *value) {
        static const char *const keys[_POWER_STATE_MAX] = {
                [POWER_AC] = "BoostAC",
                [POWER_BATTERY] = "BoostBattery",
                [POWER_LOW] = "BoostLowBattery",
        };
        int idx = config_find_class(p->config, name), from = -1, to = -1;
        unsigned u;
        int r;

        if (idx < 0)            /* section was rejected already */
                return 0;
        for (int i = 0; i < _POWER_STATE_MAX; i++)
                if (streq(key, keys[i]))
                        from = to = i;
        if (streq(key, "Boost")) {      /* shorthand: the same in every state */
                from = 0;
                to = _POWER_STATE_MAX - 1;
        }
        if (from < 0)
                return parser_fail(p, -EINVAL, "unknown key '%s' in section [%s]", key, section);
        r = parse_uint(value, BOOST_MAX, &u);
        if (r == -ERANGE)
                return parser_fail(p, -ERANGE, "%s=%s: value out of range 0..%u", key, value, BOOST_MAX);
        if (r < 0)
                return parser_fail(p, -EINVAL, "%s=%s: not a number", key, value);
        for (int i = from; i <= to; i++)
                p->config->classes[idx].boost[i] = u;
        return 1;
}

/* A user name or UID, resolved now: matching a process then compares
 * UIDs, with no name lookup (which may go beyond /etc/passwd, to NSS) per
 * exec event. A user added later needs a reload. */
static int parse_user(const char *value, uid_t *ret) {
        struct passwd pw, *pwp = NULL;
        char buf[4096];
        unsigned u;
        int r;

        if (parse_uint(value, (unsigned) -2, &u) == 0) {
                *ret = (uid_t) u;
                return 0;
        }
        r = getpwnam_r(value, &pw, buf, sizeof(buf), &pwp);
        if (r != 0)
                return -r;
        if (!pwp)
                return -ENOENT;
        *ret = pw.pw_uid;
        return 0;
}

static int parse_rule_key(Parser *p, const char *section, const char *name,
                          const char *key, const char *value) {
        int idx = config_find_rule(p->config, name);
        Rule *r;

        if (idx < 0)
                return 0;
        r = &p->config->rules[idx];
        if (streq(key, "Unit"))
                return set_string(p, &r->unit, key, value);
        if (streq(key, "Slice"))
                return set_string(p, &r->slice, key, value);
        if (streq(key, "Comm")) {
                if (strlen(value) > 15 && !strpbrk(value, "*?["))
                        return parser_fail(p, -EINVAL,
                                           "Comm=%s: longer than the kernel's 15 characters, can never match",
                                           value);
                return set_string(p, &r->comm, key, value);
        }
        if (streq(key, "Exe")) {
                if (value[0] != '/' && value[0] != '*')
                        return parser_fail(p, -EINVAL, "Exe=%s: not an absolute path or glob", value);
                return set_string(p, &r->exe, key, value);
        }
        if (streq(key, "User")) {
                int k = parse_user(value, &r->uid);

                if (k == -ENOENT)
                        return parser_fail(p, -ENOENT, "User=%s: no such user", value);
                if (k < 0)
                        return parser_fail(p, k, "User=%s: cannot look the user up: %s", value,
                                           strerror(-k));
                return set_string(p, &r->user, key, value);
        }
        if (streq(key, "Manager")) {
                if (!streq(value, "system") && !streq(value, "user"))
                        return parser_fail(p, -EINVAL, "Manager=%s: expected system or user", value);
                r->user_manager = streq(value, "user");
                return 1;
        }
        if (streq(key, "Pin")) {
                int b = parse_bool(value);

                if (b < 0)
                        return parser_fail(p, -EINVAL, "Pin=%s: expected yes or no", value);
                r->pin = b;
                return 1;
        }
        if (streq(key, "Class")) {
                if (!class_name_is_valid(value))
                        return parser_fail(p, -EINVAL, "Class=%s: invalid class name", value);
                free(r->file);
                r->file = strdup(p->file);
                if (!r->file)
                        return parser_fail(p, -ENOMEM, "out of memory");
                r->line = p->line;
                return set_string(p, &r->class_name, key, value);
        }
        return parser_fail(p, -EINVAL, "unknown key '%s' in section [%s]", key, section);
}

static int parse_auto_key(Parser *p, const char *section, const char *key, const char *value) {
        _cleanup_(freep) char *msg = NULL;
        int r;

        if (streq(section, "Input"))
                r = input_config_parse_key(&p->config->input, key, value, p->file, p->line, &msg);
        else if (streq(section, "Launch"))
                r = launch_config_parse_key(&p->config->launch, key, value, &msg);
        else if (streq(section, "Sessions"))
                r = hint_config_parse_key(&p->config->hints, key, value, p->file, p->line,
                                              &msg);
        else
                r = power_config_parse_key(&p->config->power, key, value, &msg);
        if (r < 0)
                return parser_fail(p, r, "%s", msg ?: "out of memory");
        return 1;
}

static int parser_handler(void *user, const char *section, const char *key, const char *value_in) {
        Parser *p = user;
        const char *name, *value = value_in;
        char buf[256];

        if (p->error)
                return 0;
        /* inih ends a value at " ;" (a blank, then ';'); "#" does the same
         * here, so that the two comment characters behave alike. */
        for (const char *c = value_in; *c; c++)
                if (*c == '#' && c > value_in && (c[-1] == ' ' || c[-1] == '\t')) {
                        size_t l = (size_t) (c - value_in);

                        while (l > 0 && (value_in[l - 1] == ' ' || value_in[l - 1] == '\t'))
                                l--;
                        if (l >= sizeof(buf))
                                return parser_fail(p, -EINVAL, "%s=: value too long", key);
                        memcpy(buf, value_in, l);
                        buf[l] = '\0';
                        value = buf;
                        break;
                }
        if (streq(section, ""))
                return parser_fail(p, -EINVAL, "key '%s' outside of any section", key);
        if (streq(section, "Daemon"))
                return parse_daemon_key(p, key, value);
        if (streq(section, "Input") || streq(section, "Power") || streq(section, "Sessions") ||
            streq(section, "Launch"))
                return parse_auto_key(p, section, key, value);
        if (section_split(section, "Class", &name))
                return parse_class_key(p, section, name, key, value);
        if (section_split(section, "Rule", &name))
                return parse_rule_key(p, section, name, key, value);
        return parser_fail(p, -EINVAL, "unknown section [%s]", section);
}

int config_parse_file(Config *c, const char *path, bool optional, char **ret_error) {
        _cleanup_(fclosep) FILE *f = NULL;
        Parser p = { .config = c, .file = path };
        int r;

        f = fopen(path, "re");
        if (!f) {
                if (errno == ENOENT && optional)
                        return 0;
                r = -errno;
                if (asprintf(ret_error, "%s: cannot open: %s", path, strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        p.f = f;

        r = ini_parse_stream(parser_reader, &p, parser_handler, &p);
        for (size_t i = 0; i < p.n_sections_seen; i++)
                free(p.sections_seen[i]);
        free(p.sections_seen);

        if (p.error) {
                *ret_error = p.error;
                return p.error_code < 0 ? p.error_code : -EINVAL;
        }
        if (r > 0) {
                if (asprintf(ret_error, "%s:%d: syntax error: expected [Section], Key=Value or a comment",
                             path, r) < 0)
                        *ret_error = NULL;
                return -EBADMSG;
        }
        if (r < 0) {
                if (asprintf(ret_error, "%s: cannot parse", path) < 0)
                        *ret_error = NULL;
                return -EIO;
        }
        return 0;
}
