/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* PMI-1 simple wire protocol server (RFC 13).  See shell/pmi.h.
 *
 * Each connection is served in lock-step, as the protocol is: the server
 * takes one request line, answers it, and takes the next only when the
 * answer is written and the task is not waiting in a barrier.  Lines a
 * task sends early stay in its input buffer until then, so a task that
 * writes without reading fills its socket, never the server's memory: a
 * connection holds at most one line in and one answer out.
 *
 * Parsing follows RFC 13's grammar: space-separated key=value tuples in
 * any order, extra keys ignored; "value" and "error_msg" take the rest of
 * the line (a value is an RFC 13 string, spaces included, and MPICH puts
 * it last).  A repeated key, a byte outside printable ASCII, space and
 * tab, a line without cmd, an unknown command or a missing argument is a
 * protocol error.  Answers are flux-core's simple server's, byte for
 * byte, so MPICH sees what it sees under Flux.
 *
 * Choices where RFC 13 leaves room (doc/conformance.md): the init
 * exchange is not required before other commands (RFC 13's back
 * compatibility), versions before 1.1 and PMI-2 are refused with rc=-1
 * and later ones answered 1.1 (as flux-core does), publish, unpublish, lookup
 * and spawn answer rc=-1, a key is put once (RFC 13: "SHALL NOT be put more
 * than once"; a second put is rc=4), and a value is visible as soon as it
 * is put.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "shell/pmi.h"

/* RFC 13 return codes. */
enum {
    PMI_SUCCESS = 0,
    PMI_FAIL = -1,
    PMI_ERR_INVALID_ARG = 3,
    PMI_ERR_INVALID_KEY = 4,
    PMI_ERR_INVALID_KEY_LENGTH = 5,
    PMI_ERR_INVALID_VAL_LENGTH = 7,
    PMI_ERR_INVALID_LENGTH = 8,
};

#define MAX_TUPLES 16
#define MAX_SPAWN_LINES 4096
#define OUT_MAX (PMI_SERVER_LINE_MAX + 64)

enum state { OPEN, BARRIER, CLOSED };

struct client {
    int rank;
    int fd; /* the server's end; -1 once closed */
    enum state state;
    bool talked;    /* sent a request */
    bool finalized; /* close after the answer */
    int spawn;      /* lines into an mcmd=spawn block, 0 when outside */
    size_t nputs;
    char in[PMI_SERVER_LINE_MAX + 1];
    size_t inlen;
    char out[OUT_MAX];
    size_t outlen, outoff;
};

struct pmi_server {
    int size;
    char kvsname[PMI_SERVER_KVSNAME_MAX];
    struct pmi_server_ops ops;
    void *arg;
    struct client *clients; /* by local index */
    size_t nclients, cap;
    struct client **byfd; /* by the server's fd */
    size_t nbyfd;
    size_t nbarrier;
    json_t *kvs;  /* key -> value */
    json_t *news; /* keys put locally since the last barrier */
};

struct tuple {
    const char *key, *value;
};

struct request {
    const char *line; /* as sent, for messages */
    struct tuple t[MAX_TUPLES];
    int n;
};

static int client_error (struct client *c, rp_error_t *error, int errnum,
                         const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

/* "pmi: rank N: ..." */
static int client_error (struct client *c, rp_error_t *error, int errnum,
                         const char *fmt, ...)
{
    char text[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    return rp_error_set (error, errnum, "pmi: rank %d: %s", c->rank, text);
}

/* s shown in a message: at most 64 bytes, other bytes than printable
 * ASCII as '?'. */
static const char *show (const char *s, char *buf, size_t size)
{
    size_t i;

    for (i = 0; s[i] && i < 64 && i + 4 < size; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    snprintf (buf + i, size - i, "%s", s[i] ? "..." : "");
    return buf;
}

/* --- the server --------------------------------------------------------- */

static bool is_word (const char *s)
{
    for (; *s; s++)
        if (*s <= 0x20 || *s >= 0x7f || *s == '=')
            return false;
    return true;
}

static bool name_ok (const char *s)
{
    size_t len = strlen (s);

    if (len == 0 || len >= PMI_SERVER_KVSNAME_MAX)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9') || strchr ("-_.", *s)))
            return false;
    return true;
}

struct pmi_server *pmi_server_create (int size, const char *kvsname,
                                      const struct pmi_server_ops *ops,
                                      void *arg, rp_error_t *error)
{
    struct pmi_server *srv;

    if (size < 1) {
        rp_error_set (error, EINVAL, "pmi: size must be >= 1");
        return NULL;
    }
    if (!kvsname || !name_ok (kvsname)) {
        rp_error_set (error, EINVAL,
                      "pmi: kvsname must be 1 to %d letters, digits, '-', "
                      "'_' or '.'",
                      PMI_SERVER_KVSNAME_MAX - 1);
        return NULL;
    }
    if (!(srv = calloc (1, sizeof (*srv))) || !(srv->kvs = json_object ())
        || !(srv->news = json_array ())) {
        pmi_server_destroy (srv);
        rp_error_set (error, ENOMEM, "pmi: out of memory");
        return NULL;
    }
    srv->size = size;
    snprintf (srv->kvsname, sizeof (srv->kvsname), "%s", kvsname);
    if (ops)
        srv->ops = *ops;
    srv->arg = arg;
    return srv;
}

static void client_close (struct pmi_server *srv, struct client *c)
{
    if (c->fd >= 0) {
        srv->byfd[c->fd] = NULL;
        close (c->fd);
        c->fd = -1;
    }
    if (c->state == BARRIER)
        srv->nbarrier--;
    c->state = CLOSED;
}

void pmi_server_destroy (struct pmi_server *srv)
{
    if (srv) {
        int saved_errno = errno;
        for (size_t i = 0; i < srv->nclients; i++)
            client_close (srv, &srv->clients[i]);
        free (srv->clients);
        free (srv->byfd);
        json_decref (srv->kvs);
        json_decref (srv->news);
        free (srv);
        errno = saved_errno;
    }
}

/* --- the KVS ------------------------------------------------------------ */

/* 0, or the RFC 13 code a task's put gets. */
static int kvs_check (const struct pmi_server *srv, const char *key,
                      const char *value)
{
    json_t *old = json_object_get (srv->kvs, key);

    if (strlen (key) >= PMI_SERVER_KEY_MAX)
        return PMI_ERR_INVALID_KEY_LENGTH;
    if (strlen (value) >= PMI_SERVER_VALUE_MAX)
        return PMI_ERR_INVALID_VAL_LENGTH;
    if (old && strcmp (json_string_value (old), value) != 0)
        return PMI_ERR_INVALID_KEY;
    if (json_object_size (srv->kvs)
        >= (size_t)srv->size * PMI_SERVER_PUTS_PER_TASK + 64)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

static int kvs_store (struct pmi_server *srv, const char *key,
                      const char *value, bool local)
{
    json_t *k = local ? json_string (key) : NULL;

    if ((local && json_array_append_new (srv->news, k) < 0)
        || json_object_set_new (srv->kvs, key, json_string (value)) < 0)
        return -1;
    return 0;
}

int pmi_server_kvs_put (struct pmi_server *srv, const char *key,
                        const char *value, rp_error_t *error)
{
    int rc;

    if (!srv || !key || !value || !*key || !is_word (key))
        return rp_error_set (error, EINVAL,
                             "pmi: put: a key is a word of "
                             "printable ASCII without '='");
    if ((rc = kvs_check (srv, key, value)) != PMI_SUCCESS)
        return rp_error_set (
            error, rc == PMI_ERR_INVALID_KEY ? EEXIST : EINVAL,
            "pmi: put %.64s: %s", key,
            rc == PMI_ERR_INVALID_KEY_LENGTH   ? "key too long"
            : rc == PMI_ERR_INVALID_VAL_LENGTH ? "value too long"
            : rc == PMI_ERR_INVALID_KEY ? "already put with another value"
                                        : "too many keys");
    if (kvs_store (srv, key, value, false) < 0)
        return rp_error_set (error, ENOMEM, "pmi: out of memory");
    return 0;
}

const char *pmi_server_kvs_get (const struct pmi_server *srv, const char *key)
{
    return srv && key ? json_string_value (json_object_get (srv->kvs, key))
                      : NULL;
}

int pmi_server_kvs_foreach_new (const struct pmi_server *srv,
                                int (*fn) (const char *key, const char *value,
                                           void *arg),
                                void *arg)
{
    size_t i;
    json_t *k;
    int rc;

    json_array_foreach (srv->news, i, k) {
        const char *key = json_string_value (k);
        if ((rc = fn (key, pmi_server_kvs_get (srv, key), arg)) != 0)
            return rc;
    }
    return 0;
}

int pmi_server_set_mapping (struct pmi_server *srv,
                            const struct rp_taskmap *map, rp_error_t *error)
{
    char *s = rp_taskmap_encode (map, RP_TASKMAP_PMI);
    int rc = 0;

    if (!s)
        return rp_error_set (error, errno, "pmi: PMI_process_mapping: %s",
                             strerror (errno));
    if (strlen (s) >= PMI_SERVER_VALUE_MAX)
        s[0] = '\0'; /* RFC 13: too long is unknown, an empty value */
    if (json_object_set_new (srv->kvs, "PMI_process_mapping", json_string (s))
        < 0)
        rc = rp_error_set (error, ENOMEM, "pmi: out of memory");
    free (s);
    return rc;
}

/* --- connections -------------------------------------------------------- */

static int index_fd (struct pmi_server *srv, int fd)
{
    if ((size_t)fd >= srv->nbyfd) {
        size_t n = (size_t)fd * 2 + 16;
        struct client **b = realloc (srv->byfd, n * sizeof (*b));
        if (!b)
            return -1;
        memset (b + srv->nbyfd, 0, (n - srv->nbyfd) * sizeof (*b));
        srv->byfd = b;
        srv->nbyfd = n;
    }
    return 0;
}

static bool rank_taken (const struct pmi_server *srv, int rank)
{
    for (size_t i = 0; i < srv->nclients; i++)
        if (srv->clients[i].rank == rank)
            return true;
    return false;
}

/* Room for one more client; the fd index is rebuilt when the array
 * moves. */
static int grow (struct pmi_server *srv)
{
    struct client *c;

    if (srv->nclients < srv->cap)
        return 0;
    if (!(c = realloc (srv->clients, (srv->cap * 2 + 4) * sizeof (*c))))
        return -1;
    srv->clients = c;
    srv->cap = srv->cap * 2 + 4;
    for (size_t i = 0; i < srv->nclients; i++)
        if (c[i].fd >= 0)
            srv->byfd[c[i].fd] = &c[i];
    return 0;
}

int pmi_server_add_task (struct pmi_server *srv, int rank, rp_error_t *error)
{
    int sv[2];
    struct client *c;

    if (!srv || rank < 0 || rank >= srv->size)
        return rp_error_set (error, EINVAL, "pmi: rank %d: not in 0-%d", rank,
                             srv ? srv->size - 1 : 0);
    if (rank_taken (srv, rank))
        return rp_error_set (error, EEXIST, "pmi: rank %d: added twice", rank);
    if (grow (srv) < 0)
        return rp_error_set (error, ENOMEM, "pmi: out of memory");
    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return rp_error_set (error, errno, "pmi: socketpair: %s",
                             strerror (errno));
    if (fcntl (sv[0], F_SETFL, O_NONBLOCK) < 0 || index_fd (srv, sv[0]) < 0) {
        int e = errno ? errno : ENOMEM;
        close (sv[0]);
        close (sv[1]);
        return rp_error_set (error, e, "pmi: rank %d: %s", rank, strerror (e));
    }
    c = &srv->clients[srv->nclients++];
    memset (c, 0, sizeof (*c));
    c->rank = rank;
    c->fd = sv[0];
    srv->byfd[sv[0]] = c;
    return sv[1];
}

int pmi_server_task_env (const struct pmi_server *srv, int rank, int fd,
                         char env[4][32])
{
    if (!srv || rank < 0 || rank >= srv->size || fd < 0) {
        errno = EINVAL;
        return -1;
    }
    snprintf (env[0], 32, "PMI_FD=%d", fd);
    snprintf (env[1], 32, "PMI_RANK=%d", rank);
    snprintf (env[2], 32, "PMI_SIZE=%d", srv->size);
    snprintf (env[3], 32, "PMI_SPAWNED=0");
    return 0;
}

size_t pmi_server_nopen (const struct pmi_server *srv)
{
    size_t n = 0;

    for (size_t i = 0; srv && i < srv->nclients; i++)
        if (srv->clients[i].fd >= 0)
            n++;
    return n;
}

size_t pmi_server_pollfds (const struct pmi_server *srv, struct pollfd *fds,
                           size_t n)
{
    size_t count = 0;

    for (size_t i = 0; srv && i < srv->nclients; i++) {
        const struct client *c = &srv->clients[i];
        if (c->fd < 0)
            continue;
        if (count < n) {
            fds[count].fd = c->fd;
            /* POLLOUT also when lines wait that the task sent before an
             * answer: the socket is writable, so handle comes at once. */
            fds[count].events = c->outlen > c->outoff            ? POLLOUT
                                : c->state == BARRIER            ? 0
                                : memchr (c->in, '\n', c->inlen) ? POLLOUT
                                                                 : POLLIN;
            fds[count].revents = 0;
        }
        count++;
    }
    return count;
}

/* --- answers ------------------------------------------------------------ */

static void respond (struct client *c, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Queue one answer (the buffer is empty: lock-step). */
static void respond (struct client *c, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (c->out, sizeof (c->out), fmt, ap);
    va_end (ap);
    c->outlen = n < (int)sizeof (c->out) ? (size_t)n : sizeof (c->out) - 1;
    c->outoff = 0;
}

/* Write what is queued.  0 when all of it went (or the task is gone: its
 * hangup shows on the next read), 1 when some is left. */
static int flush (struct client *c)
{
    while (c->outoff < c->outlen) {
        ssize_t n = send (c->fd, c->out + c->outoff, c->outlen - c->outoff,
                          MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (n < 0) {
            c->outoff = c->outlen = 0;
            return 0;
        }
        c->outoff += n;
    }
    c->outoff = c->outlen = 0;
    return 0;
}

/* --- requests ----------------------------------------------------------- */

static const char *get (const struct request *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp (r->t[i].key, key))
            return r->t[i].value;
    return NULL;
}

static bool rest_of_line (const char *key)
{
    return !strcmp (key, "value") || !strcmp (key, "error_msg");
}

/* Split line (no newline) into tuples, in place; r->line is the line as
 * sent. */
static int parse (struct client *c, char *line, struct request *r,
                  rp_error_t *error)
{
    char buf[80];
    char *p = line;

    r->n = 0;
    for (const char *s = line; *s; s++)
        if ((*s < 0x20 && *s != '\t') || *s >= 0x7f)
            return client_error (c, error, EPROTO,
                                 "request holds byte 0x%02x, not RFC 13 text",
                                 (unsigned char)*s);
    while (*p) {
        char *eq, *end, *space;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        space = strpbrk (p, " \t");
        if (!(eq = strchr (p, '=')) || eq == p || (space && space < eq))
            return client_error (c, error, EPROTO, "\"%s\": not key=value",
                                 show (p, buf, sizeof (buf)));
        *eq = '\0';
        end = rest_of_line (p) ? eq + 1 + strlen (eq + 1)
                               : eq + 1 + strcspn (eq + 1, " \t");
        if (r->n == MAX_TUPLES)
            return client_error (c, error, EPROTO, "more than %d keys",
                                 MAX_TUPLES);
        if (get (r, p))
            return client_error (c, error, EPROTO, "%s: repeated key", p);
        r->t[r->n++] = (struct tuple){ p, eq + 1 };
        p = end;
        if (*p)
            *p++ = '\0';
    }
    return 0;
}

static int need (struct client *c, const struct request *r, const char *key,
                 const char **value, rp_error_t *error)
{
    if (!(*value = get (r, key)))
        return client_error (c, error, EPROTO, "%s without %s", get (r, "cmd"),
                             key);
    return 0;
}

static int parse_int (const char *s, long min, long max, long *v)
{
    char *end;

    errno = 0;
    *v = strtol (s, &end, 10);
    return errno || end == s || *end || *v < min || *v > max ? -1 : 0;
}

static int do_init (struct client *c, const struct request *r,
                    rp_error_t *error)
{
    const char *v, *sv;
    long version, sub;

    if (need (c, r, "pmi_version", &v, error) < 0
        || need (c, r, "pmi_subversion", &sv, error) < 0)
        return -1;
    if (parse_int (v, 0, INT32_MAX, &version) < 0
        || parse_int (sv, 0, INT32_MAX, &sub) < 0)
        return client_error (c, error, EPROTO,
                             "init: versions must be "
                             "unsigned integers");
    /* RFC 13: the server answers the version it will use.  Older than
     * 1.1 cannot be served, and a PMI-2 client speaks another protocol
     * after init (flux-core refuses both too). */
    if (version < 1 || (version == 1 && sub < 1) || version == 2)
        respond (c, "cmd=response_to_init rc=-1\n");
    else
        respond (c, "cmd=response_to_init rc=0 pmi_version=1 "
                    "pmi_subversion=1\n");
    return 0;
}

/* kvsname, key (and value) of a put or get; the RFC 13 code when one is
 * too long or names another KVS. */
static int kvs_args (struct client *c, const struct pmi_server *srv,
                     const struct request *r, const char **key, int *code,
                     rp_error_t *error)
{
    const char *name;

    if (need (c, r, "kvsname", &name, error) < 0
        || need (c, r, "key", key, error) < 0)
        return -1;
    if (!is_word (name) || !is_word (*key) || !**key)
        return client_error (c, error, EPROTO,
                             "%s: kvsname and key must be "
                             "words",
                             get (r, "cmd"));
    *code = strlen (name) >= PMI_SERVER_KVSNAME_MAX ? PMI_ERR_INVALID_LENGTH
            : strlen (*key) >= PMI_SERVER_KEY_MAX   ? PMI_ERR_INVALID_KEY_LENGTH
            : strcmp (name, srv->kvsname)           ? PMI_ERR_INVALID_ARG
                                                    : PMI_SUCCESS;
    return 0;
}

static int do_put (struct pmi_server *srv, struct client *c,
                   const struct request *r, rp_error_t *error)
{
    const char *key, *value;
    int code;

    if (kvs_args (c, srv, r, &key, &code, error) < 0
        || need (c, r, "value", &value, error) < 0)
        return -1;
    if (code == PMI_SUCCESS && c->nputs >= PMI_SERVER_PUTS_PER_TASK)
        code = PMI_FAIL;
    if (code == PMI_SUCCESS && json_object_get (srv->kvs, key))
        code = PMI_ERR_INVALID_KEY; /* RFC 13: put once */
    if (code == PMI_SUCCESS)
        code = kvs_check (srv, key, value);
    if (code == PMI_SUCCESS && kvs_store (srv, key, value, true) < 0)
        return client_error (c, error, ENOMEM, "out of memory");
    if (code == PMI_SUCCESS)
        c->nputs++;
    respond (c, "cmd=put_result rc=%d\n", code);
    return 0;
}

static int do_get (struct pmi_server *srv, struct client *c,
                   const struct request *r, rp_error_t *error)
{
    const char *key, *value = NULL;
    int code;

    if (kvs_args (c, srv, r, &key, &code, error) < 0)
        return -1;
    if (code == PMI_SUCCESS && !(value = pmi_server_kvs_get (srv, key)))
        code = PMI_ERR_INVALID_KEY;
    if (code == PMI_SUCCESS)
        respond (c, "cmd=get_result rc=0 value=%s\n", value);
    else
        respond (c, "cmd=get_result rc=%d\n", code);
    return 0;
}

static void do_abort (struct pmi_server *srv, struct client *c,
                      const struct request *r)
{
    const char *code = get (r, "exitcode");
    const char *msg = get (r, "error_msg");
    long v = 1;

    if (!code)
        code = get (r, "exit_code"); /* older clients */
    if (code && parse_int (code, INT32_MIN, INT32_MAX, &v) < 0)
        v = 1;
    if (srv->ops.abort)
        srv->ops.abort (srv, c->rank, (int)v, msg ? msg : "", srv->arg);
}

static void barrier_enter (struct pmi_server *srv, struct client *c)
{
    c->state = BARRIER;
    if (++srv->nbarrier < srv->nclients)
        return;
    if (!srv->ops.barrier)
        pmi_server_barrier_done (srv, 0);
    else if (srv->ops.barrier (srv, srv->arg) < 0)
        pmi_server_barrier_done (srv, -1);
}

/* Inside an mcmd=spawn block: lines up to endcmd are read and dropped. */
static int in_spawn (struct client *c, const char *line, rp_error_t *error)
{
    if (!strcmp (line, "endcmd")) {
        c->spawn = 0;
        respond (c, "cmd=spawn_result rc=-1\n");
    } else if (++c->spawn > MAX_SPAWN_LINES)
        return client_error (c, error, EPROTO,
                             "spawn: more than %d lines without endcmd",
                             MAX_SPAWN_LINES);
    return 0;
}

static int dispatch (struct pmi_server *srv, struct client *c,
                     const struct request *r, rp_error_t *error)
{
    const char *cmd = get (r, "cmd");
    char buf[80];

    if (!cmd && get (r, "mcmd") && !strcmp (get (r, "mcmd"), "spawn")) {
        c->spawn = 1;
        return 0;
    }
    if (!cmd)
        return client_error (c, error, EPROTO, "request without cmd: \"%s\"",
                             show (r->line, buf, sizeof (buf)));
    if (!strcmp (cmd, "init"))
        return do_init (c, r, error);
    if (!strcmp (cmd, "get_maxes"))
        respond (c,
                 "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d "
                 "vallen_max=%d\n",
                 PMI_SERVER_KVSNAME_MAX, PMI_SERVER_KEY_MAX,
                 PMI_SERVER_VALUE_MAX);
    else if (!strcmp (cmd, "get_appnum"))
        respond (c, "cmd=appnum rc=0 appnum=0\n");
    else if (!strcmp (cmd, "get_universe_size"))
        respond (c, "cmd=universe_size rc=0 size=%d\n", srv->size);
    else if (!strcmp (cmd, "get_my_kvsname"))
        respond (c, "cmd=my_kvsname rc=0 kvsname=%s\n", srv->kvsname);
    else if (!strcmp (cmd, "put"))
        return do_put (srv, c, r, error);
    else if (!strcmp (cmd, "get"))
        return do_get (srv, c, r, error);
    else if (!strcmp (cmd, "barrier_in"))
        barrier_enter (srv, c);
    else if (!strcmp (cmd, "finalize")) {
        respond (c, "cmd=finalize_ack rc=0\n");
        c->finalized = true;
    } else if (!strcmp (cmd, "abort"))
        do_abort (srv, c, r);
    else if (!strcmp (cmd, "publish_name") || !strcmp (cmd, "unpublish_name")
             || !strcmp (cmd, "lookup_name")) {
        const char *what = cmd[0] == 'p'   ? "publish"
                           : cmd[0] == 'u' ? "unpublish"
                                           : "lookup";
        respond (c, "cmd=%s_result rc=-1 msg=not_supported\n", what);
    } else
        return client_error (c, error, EPROTO, "unknown command \"%s\"",
                             show (cmd, buf, sizeof (buf)));
    return 0;
}

/* Take the next complete line out of the input buffer into line. */
static bool next_line (struct client *c, char *line)
{
    char *nl = memchr (c->in, '\n', c->inlen);
    size_t len;

    if (!nl)
        return false;
    len = nl - c->in;
    memcpy (line, c->in, len);
    line[len] = '\0';
    if (len && line[len - 1] == '\r')
        line[len - 1] = '\0';
    memmove (c->in, nl + 1, c->inlen - len - 1);
    c->inlen -= len + 1;
    return true;
}

/* Serve the lines waiting, one at a time, while the task is not waiting
 * for an answer or a barrier. */
static int serve (struct pmi_server *srv, struct client *c, rp_error_t *error)
{
    char line[PMI_SERVER_LINE_MAX + 1];
    char tuples[PMI_SERVER_LINE_MAX + 1]; /* line, cut into tuples */
    struct request r;

    while (c->fd >= 0 && c->state == OPEN && c->outlen == 0 && !c->finalized
           && next_line (c, line)) {
        c->talked = true;
        strcpy (tuples, line);
        r.line = line;
        if (c->spawn ? in_spawn (c, line, error)
                     : parse (c, tuples, &r, error) < 0
                           || dispatch (srv, c, &r, error) < 0)
            return -1;
        if (c->outlen && flush (c) == 1)
            return 0;
    }
    if (c->finalized && c->outlen == 0)
        client_close (srv, c);
    return 0;
}

int pmi_server_barrier_done (struct pmi_server *srv, int rc)
{
    if (!srv || srv->nbarrier < srv->nclients) {
        errno = EINVAL;
        return -1;
    }
    srv->nbarrier = 0;
    json_array_clear (srv->news);
    for (size_t i = 0; i < srv->nclients; i++) {
        struct client *c = &srv->clients[i];
        if (c->state != BARRIER)
            continue;
        c->state = OPEN;
        respond (c, "cmd=barrier_out rc=%d\n", rc == 0 ? 0 : -1);
        flush (c);
    }
    return 0;
}

/* Read what the task sent.  1 at end of file. */
static int fill (struct client *c, rp_error_t *error)
{
    ssize_t n;

    if (c->inlen == sizeof (c->in))
        return client_error (c, error, EPROTO, "request longer than %d bytes",
                             PMI_SERVER_LINE_MAX);
    do
        n = read (c->fd, c->in + c->inlen, sizeof (c->in) - c->inlen);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n < 0)
        return client_error (c, error, errno, "read: %s", strerror (errno));
    if (n == 0)
        return 1;
    if (memchr (c->in + c->inlen, '\0', n))
        return client_error (c, error, EPROTO,
                             "request holds byte 0x00, not RFC 13 text");
    c->inlen += n;
    if (c->inlen == sizeof (c->in) && !memchr (c->in, '\n', c->inlen))
        return client_error (c, error, EPROTO, "request longer than %d bytes",
                             PMI_SERVER_LINE_MAX);
    return 0;
}

/* The task's end of file: not an error when it never talked (it does not
 * use PMI) or when it finalized. */
static int hangup (struct pmi_server *srv, struct client *c, rp_error_t *error)
{
    if (c->talked && !c->finalized)
        return client_error (c, error, EPIPE,
                             "closed its connection before finalize");
    client_close (srv, c);
    return 0;
}

static int handle_client (struct pmi_server *srv, struct client *c,
                          short revents, rp_error_t *error)
{
    const short gone = POLLHUP | POLLERR | POLLNVAL;
    int rc;

    if ((revents & POLLOUT) && flush (c) == 1)
        return 0;
    if (c->outlen == 0 && c->state == OPEN && !c->finalized) {
        if (revents & (POLLIN | gone)) {
            if ((rc = fill (c, error)) < 0)
                return -1;
            if (rc == 1)
                return hangup (srv, c, error);
        }
    } else if (revents & gone)
        return hangup (srv, c, error);
    return serve (srv, c, error);
}

int pmi_server_handle (struct pmi_server *srv, int fd, short revents,
                       rp_error_t *error)
{
    struct client *c;

    if (!srv || fd < 0 || (size_t)fd >= srv->nbyfd || !(c = srv->byfd[fd]))
        return rp_error_set (error, EINVAL,
                             "pmi: fd %d: not a task's "
                             "connection",
                             fd);
    if (handle_client (srv, c, revents, error) < 0) {
        client_close (srv, c);
        return -1;
    }
    return 0;
}
