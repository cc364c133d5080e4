/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the PMI-1 server: shell/pmi.c.
 *
 * Fake clients speak the wire protocol as MPICH's simple PMI client does
 * (the same request lines) over the socketpairs the server hands out,
 * all in this process: a request is written, the server is run until it
 * has nothing left to do (poll with timeout 0), and the answer read.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell/pmi.h"
#include "t/tap/tap.h"

/* Run the server until poll reports nothing.  Returns the number of
 * handle errors; the last one's text is in *error. */
static int run (struct pmi_server *srv, rp_error_t *error)
{
    struct pollfd fds[64];
    int errors = 0;

    for (;;) {
        size_t n = pmi_server_pollfds (srv, fds, 64);
        int ready = poll (fds, n, 0);
        if (ready <= 0)
            return errors;
        for (size_t i = 0; i < n; i++)
            if (fds[i].revents
                && pmi_server_handle (srv, fds[i].fd, fds[i].revents, error)
                       < 0)
                errors++;
    }
}

static void say (int fd, const char *line)
{
    size_t len = strlen (line);

    if (write (fd, line, len) != (ssize_t)len)
        BAIL_OUT ("write: %s", strerror (errno));
}

/* What the server has sent on fd ("" when nothing, "EOF" at end of file).
 * One of 4 rotating buffers. */
static const char *hear (int fd)
{
    static char buf[4][2048];
    static int next;
    char *b = buf[next++ % 4];
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t n;

    b[0] = '\0';
    if (poll (&p, 1, 0) <= 0)
        return b;
    if ((n = read (fd, b, sizeof (buf[0]) - 1)) <= 0)
        return strcpy (b, n == 0 ? "EOF" : "ERROR");
    b[n] = '\0';
    return b;
}

/* Request, serve, answer. */
static const char *ask (struct pmi_server *srv, int fd, const char *line)
{
    rp_error_t e = { "" };

    say (fd, line);
    if (run (srv, &e) != 0)
        diag ("server error: %s", e.text);
    return hear (fd);
}

static struct pmi_server *server (int size, const struct pmi_server_ops *ops,
                                  void *arg, int *fds, int n)
{
    rp_error_t e;
    struct pmi_server *srv = pmi_server_create (size, "kvs-7", ops, arg, &e);

    if (!srv)
        BAIL_OUT ("pmi_server_create: %s", e.text);
    for (int r = 0; r < n; r++)
        if ((fds[r] = pmi_server_add_task (srv, r, &e)) < 0)
            BAIL_OUT ("add_task: %s", e.text);
    return srv;
}

/* --- a job of 4 ranks, as MPICH's MPI_Init and MPI_Finalize talk -------- */

static void test_job (void)
{
    int fd[4];
    struct pmi_server *srv = server (4, NULL, NULL, fd, 4);
    struct rp_taskmap *map = rp_taskmap_decode ("[[0,1,4,1]]", NULL);
    char line[128], want[128];
    bool good = true;

    ok (pmi_server_set_mapping (srv, map, NULL) == 0,
        "PMI_process_mapping from the task map");
    for (int r = 0; r < 4; r++) {
        good = good
               && !strcmp (ask (srv, fd[r],
                                "cmd=init pmi_version=1 "
                                "pmi_subversion=1\n"),
                           "cmd=response_to_init rc=0 pmi_version=1 "
                           "pmi_subversion=1\n");
    }
    ok (good, "init: every rank gets PMI 1.1");
    is (ask (srv, fd[0], "cmd=get_maxes\n"),
        "cmd=maxes rc=0 kvsname_max=64 keylen_max=64 vallen_max=1024\n",
        "get_maxes");
    is (ask (srv, fd[1], "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=0\n",
        "get_appnum");
    is (ask (srv, fd[2], "cmd=get_my_kvsname\n"),
        "cmd=my_kvsname rc=0 kvsname=kvs-7\n", "get_my_kvsname");
    is (ask (srv, fd[3], "cmd=get_universe_size\n"),
        "cmd=universe_size rc=0 size=4\n", "get_universe_size");
    good = true;
    for (int r = 0; r < 4; r++) {
        snprintf (line, sizeof (line),
                  "cmd=put kvsname=kvs-7 key=P%d-businesscard "
                  "value=description#host%d$port#%d$ifname#10.0.0.%d$\n",
                  r, r, 4000 + r, r);
        good =
            good && !strcmp (ask (srv, fd[r], line), "cmd=put_result rc=0\n");
    }
    ok (good, "put: each rank puts its business card");
    good = true;
    for (int r = 0; r < 3; r++)
        good = good && !strcmp (ask (srv, fd[r], "cmd=barrier_in\n"), "");
    ok (good, "barrier_in: ranks 0-2 wait for rank 3");
    ok (pmi_server_barrier_done (srv, 0) < 0 && errno == EINVAL,
        "barrier_done before every task entered fails with EINVAL");
    is (ask (srv, fd[3], "cmd=barrier_in\n"), "cmd=barrier_out rc=0\n",
        "rank 3 enters: barrier_out");
    good = true;
    for (int r = 0; r < 3; r++)
        good = good && !strcmp (hear (fd[r]), "cmd=barrier_out rc=0\n");
    ok (good, "and ranks 0-2 get barrier_out too");
    good = true;
    for (int r = 0; r < 4; r++) {
        int peer = (r + 1) % 4;
        snprintf (line, sizeof (line),
                  "cmd=get kvsname=kvs-7 key=P%d-businesscard\n", peer);
        snprintf (want, sizeof (want),
                  "cmd=get_result rc=0 "
                  "value=description#host%d$port#%d$ifname#10.0.0.%d$\n",
                  peer, 4000 + peer, peer);
        good = good && !strcmp (ask (srv, fd[r], line), want);
    }
    ok (good, "get: each rank reads the next rank's business card");
    is (ask (srv, fd[0], "cmd=get kvsname=kvs-7 key=PMI_process_mapping\n"),
        "cmd=get_result rc=0 value=(vector,(0,1,4))\n",
        "get PMI_process_mapping");
    is (ask (srv, fd[0], "cmd=get kvsname=kvs-7 key=nothing\n"),
        "cmd=get_result rc=4\n", "get of a key nobody put: rc=4");
    good = true;
    for (int r = 0; r < 4; r++) {
        good = good
               && !strcmp (ask (srv, fd[r], "cmd=finalize\n"),
                           "cmd=finalize_ack rc=0\n")
               && !strcmp (hear (fd[r]), "EOF");
    }
    ok (good, "finalize: finalize_ack, then the server closes");
    ok (pmi_server_nopen (srv) == 0, "no connection is left open");
    for (int r = 0; r < 4; r++)
        close (fd[r]);
    rp_taskmap_destroy (map);
    pmi_server_destroy (srv);
}

/* --- the KVS rules -------------------------------------------------------- */

static void test_kvs (void)
{
    int fd[2];
    struct pmi_server *srv = server (2, NULL, NULL, fd, 2);
    char line[2048];
    int n;

    is (ask (srv, fd[0], "cmd=put kvsname=kvs-7 key=a value=one two  three\n"),
        "cmd=put_result rc=0\n", "put: a value may hold spaces");
    is (ask (srv, fd[1], "cmd=get key=a kvsname=kvs-7\n"),
        "cmd=get_result rc=0 value=one two  three\n",
        "get: tuples in any order; the value as put");
    is (ask (srv, fd[1], "cmd=put kvsname=kvs-7 key=a value=one two  three\n"),
        "cmd=put_result rc=4\n", "put: a key is put once (rc=4)");
    is (ask (srv, fd[1], "cmd=put kvsname=other key=b value=1\n"),
        "cmd=put_result rc=3\n", "put: another KVS's name (rc=3)");
    n = snprintf (line, sizeof (line), "cmd=put kvsname=kvs-7 key=");
    memset (line + n, 'k', 64);
    strcpy (line + n + 64, " value=1\n");
    is (ask (srv, fd[1], line), "cmd=put_result rc=5\n",
        "put: a 64-byte key is too long (rc=5)");
    n = snprintf (line, sizeof (line), "cmd=put kvsname=kvs-7 key=v value=");
    memset (line + n, 'v', 1024);
    strcpy (line + n + 1024, "\n");
    is (ask (srv, fd[1], line), "cmd=put_result rc=7\n",
        "put: a 1024-byte value is too long (rc=7)");
    line[n + 1023] = '\n';
    line[n + 1024] = '\0';
    is (ask (srv, fd[1], line), "cmd=put_result rc=0\n",
        "put: a 1023-byte value fits");
    for (int i = 0; i < PMI_SERVER_PUTS_PER_TASK; i++) {
        snprintf (line, sizeof (line),
                  "cmd=put kvsname=kvs-7 key=k%d value=x\n", i);
        if (strcmp (ask (srv, fd[0], line), "cmd=put_result rc=0\n") != 0) {
            ok (i == PMI_SERVER_PUTS_PER_TASK - 1, "puts up to the limit");
            break;
        }
    }
    is (ask (srv, fd[0], "cmd=put kvsname=kvs-7 key=more value=x\n"),
        "cmd=put_result rc=-1\n",
        "put: one more than 256 keys from a task fails (rc=-1)");
    is (ask (srv, fd[0], "cmd=publish_name service=s port=p\n"),
        "cmd=publish_result rc=-1 msg=not_supported\n", "publish: rc=-1");
    is (ask (srv, fd[0], "cmd=lookup_name service=s\n"),
        "cmd=lookup_result rc=-1 msg=not_supported\n", "lookup: rc=-1");
    is (ask (srv, fd[0], "mcmd=spawn\nnprocs=1\nexecname=a\nendcmd\n"),
        "cmd=spawn_result rc=-1\n", "spawn: the block is read, rc=-1");
    is (ask (srv, fd[0], "cmd=init pmi_version=2 pmi_subversion=0\n"),
        "cmd=response_to_init rc=-1\n", "init: PMI 2 is refused (rc=-1)");
    is (ask (srv, fd[0], "cmd=init pmi_version=1 pmi_subversion=0\n"),
        "cmd=response_to_init rc=-1\n", "init: PMI 1.0 is refused (rc=-1)");
    is (ask (srv, fd[0], "cmd=init pmi_version=1 pmi_subversion=2\n"),
        "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n",
        "init: PMI 1.2 is answered with 1.1, the version served");
    is (ask (srv, fd[1], "cmd=get_appnum\ncmd=get_universe_size\n"),
        "cmd=appnum rc=0 appnum=0\ncmd=universe_size rc=0 size=2\n",
        "two requests in one write: two answers, in order");
    close (fd[0]);
    close (fd[1]);
    pmi_server_destroy (srv);
}

/* --- the barrier hook: the seam for several nodes ------------------------ */

struct hook {
    int called;
    char keys[256];
};

static int list_key (const char *key, const char *value, void *arg)
{
    struct hook *h = arg;
    size_t used = strlen (h->keys);

    snprintf (h->keys + used, sizeof (h->keys) - used, "%s%s=%s",
              used ? " " : "", key, value);
    return 0;
}

static int barrier_hook (struct pmi_server *srv, void *arg)
{
    struct hook *h = arg;

    h->called++;
    h->keys[0] = '\0';
    return pmi_server_kvs_foreach_new (srv, list_key, h);
}

static void test_hook (void)
{
    struct hook h = { 0, "" };
    struct pmi_server_ops ops = { .barrier = barrier_hook };
    int fd[2];
    struct pmi_server *srv = server (4, &ops, &h, fd, 2); /* ranks 0, 1 here */
    rp_error_t e;

    ask (srv, fd[0], "cmd=put kvsname=kvs-7 key=a value=0\n");
    ask (srv, fd[1], "cmd=put kvsname=kvs-7 key=b value=1\n");
    ask (srv, fd[0], "cmd=barrier_in\n");
    ok (h.called == 0, "hook: not called before every local task entered");
    is (ask (srv, fd[1], "cmd=barrier_in\n"), "",
        "hook: the barrier waits for the other nodes");
    ok (h.called == 1, "hook: called once every local task entered");
    is (h.keys, "a=0 b=1", "hook: the keys put here since the last barrier");
    ok (pmi_server_kvs_put (srv, "c", "2", &e) == 0
            && pmi_server_kvs_put (srv, "d", "3", &e) == 0,
        "the other node's keys are put");
    ok (pmi_server_kvs_put (srv, "c", "2", &e) == 0,
        "putting the same key and value again is harmless");
    errno = 0;
    ok (pmi_server_kvs_put (srv, "c", "9", &e) < 0 && errno == EEXIST,
        "another value for a key fails with EEXIST");
    is (e.text, "pmi: put c: already put with another value",
        "with its message");
    ok (pmi_server_barrier_done (srv, 0) == 0, "barrier_done");
    ok (!strcmp (hear (fd[0]), "cmd=barrier_out rc=0\n")
            && !strcmp (hear (fd[1]), "cmd=barrier_out rc=0\n"),
        "every local task gets barrier_out");
    is (ask (srv, fd[0], "cmd=get kvsname=kvs-7 key=d\n"),
        "cmd=get_result rc=0 value=3\n", "a key from the other node");
    h.keys[0] = '\0';
    pmi_server_kvs_foreach_new (srv, list_key, &h);
    is (h.keys, "", "no key is new after the barrier");
    close (fd[0]);
    close (fd[1]);
    pmi_server_destroy (srv);
}

static int failing_hook (struct pmi_server *srv, void *arg)
{
    return -1;
}

static void test_failed_barrier (void)
{
    struct pmi_server_ops ops = { .barrier = failing_hook };
    int fd[1];
    struct pmi_server *srv = server (1, &ops, NULL, fd, 1);

    is (ask (srv, fd[0], "cmd=barrier_in\n"), "cmd=barrier_out rc=-1\n",
        "a hook that fails: barrier_out rc=-1");
    close (fd[0]);
    pmi_server_destroy (srv);
}

/* --- abort ---------------------------------------------------------------- */

struct aborted {
    int rank, code;
    char msg[64];
};

static void on_abort (struct pmi_server *srv, int rank, int code,
                      const char *msg, void *arg)
{
    struct aborted *a = arg;

    a->rank = rank;
    a->code = code;
    snprintf (a->msg, sizeof (a->msg), "%s", msg);
}

static void test_abort (void)
{
    struct aborted a = { -1, 0, "" };
    struct pmi_server_ops ops = { .abort = on_abort };
    int fd[2];
    struct pmi_server *srv = server (2, &ops, &a, fd, 2);

    is (ask (srv, fd[1], "cmd=abort exitcode=7\n"), "",
        "abort: no answer (the task exits)");
    ok (a.rank == 1 && a.code == 7 && !strcmp (a.msg, ""),
        "abort: the hook gets rank 1, exit code 7");
    ask (srv, fd[0], "cmd=abort exit_code=3 error_msg=out of cheese\n");
    ok (a.rank == 0 && a.code == 3 && !strcmp (a.msg, "out of cheese"),
        "abort: exit_code and error_msg as older clients send them");
    close (fd[0]);
    close (fd[1]);
    pmi_server_destroy (srv);
}

/* --- garbage -------------------------------------------------------------- */

static const struct {
    const char *in;
    const char *error;
} garbage[] = {
    { "cmd=frob\n", "pmi: rank 0: unknown command \"frob\"" },
    { "hello\n", "pmi: rank 0: \"hello\": not key=value" },
    { "key=a\n", "pmi: rank 0: request without cmd: \"key=a\"" },
    { "=a cmd=init\n", "pmi: rank 0: \"=a cmd=init\": not key=value" },
    { "cmd=get cmd=get\n", "pmi: rank 0: cmd: repeated key" },
    { "cmd=put kvsname=kvs-7 value=1\n", "pmi: rank 0: put without key" },
    { "cmd=get key=a\n", "pmi: rank 0: get without kvsname" },
    { "cmd=init pmi_version=1\n", "pmi: rank 0: init without pmi_subversion" },
    { "cmd=init pmi_version=x pmi_subversion=1\n",
      "pmi: rank 0: init: versions must be unsigned integers" },
    { "cmd=get\x01 kvsname=kvs-7\n",
      "pmi: rank 0: request holds byte 0x01, not RFC 13 text" },
    { "cmd=get\xff\n",
      "pmi: rank 0: request holds byte 0xff, not RFC 13 text" },
    { "cmd=get\0\n", "pmi: rank 0: request holds byte 0x00, not RFC 13 text" },
    { "a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=10 k=11 l=12 m=13 n=14 o=15 "
      "p=16 q=17\n",
      "pmi: rank 0: more than 16 keys" },
};

static void test_garbage (void)
{
    for (size_t i = 0; i < sizeof (garbage) / sizeof (garbage[0]); i++) {
        int fd;
        struct pmi_server *srv = server (1, NULL, NULL, &fd, 1);
        rp_error_t e = { "" };
        size_t len = strlen (garbage[i].in);
        if (!strcmp (garbage[i].in, "cmd=get"))
            len = 9; /* the one with a NUL inside */
        if (write (fd, garbage[i].in, len) != (ssize_t)len)
            BAIL_OUT ("write");
        ok (run (srv, &e) == 1 && pmi_server_nopen (srv) == 0,
            "garbage closes the connection: %s", tap_escape (garbage[i].in));
        is (e.text, garbage[i].error, "with its message");
        is (hear (fd), "EOF", "and the task sees end of file");
        close (fd);
        pmi_server_destroy (srv);
    }
}

static void test_oversized (void)
{
    int fd[2];
    struct pmi_server *srv = server (2, NULL, NULL, fd, 2);
    char *big = malloc (PMI_SERVER_LINE_MAX + 100);
    rp_error_t e = { "" };

    memset (big, 'x', PMI_SERVER_LINE_MAX + 100);
    memcpy (big, "cmd=put kvsname=kvs-7 key=k value=", 34);
    if (write (fd[0], big, PMI_SERVER_LINE_MAX + 100) < 0)
        BAIL_OUT ("write");
    ok (run (srv, &e) == 1, "a line longer than the limit is refused");
    is (e.text, "pmi: rank 0: request longer than 1216 bytes",
        "with its message");
    is (ask (srv, fd[1], "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=0\n",
        "the other tasks are still served");
    free (big);
    close (fd[0]);
    close (fd[1]);
    pmi_server_destroy (srv);
}

/* --- hangups -------------------------------------------------------------- */

static void test_hangups (void)
{
    int fd[3];
    struct pmi_server *srv = server (3, NULL, NULL, fd, 3);
    rp_error_t e = { "" };

    close (fd[0]); /* never talked: a program without PMI */
    ok (run (srv, &e) == 0 && pmi_server_nopen (srv) == 2,
        "a task that closes without a request is no error");
    ask (srv, fd[1], "cmd=init pmi_version=1 pmi_subversion=1\n");
    ask (srv, fd[1], "cmd=barrier_in\n");
    close (fd[1]);
    ok (run (srv, &e) == 1 && pmi_server_nopen (srv) == 1,
        "a task that closes in a barrier is an error");
    is (e.text, "pmi: rank 1: closed its connection before finalize",
        "with its message");
    ask (srv, fd[2], "cmd=init pmi_version=1 pmi_subversion=1\n");
    close (fd[2]);
    ok (run (srv, &e) == 1 && pmi_server_nopen (srv) == 0,
        "a task that closes after init is an error");
    pmi_server_destroy (srv);
}

static void test_api (void)
{
    rp_error_t e = { "" };
    struct pmi_server *srv;
    char env[4][32];
    int fd;

    ok (pmi_server_create (0, "kvs", NULL, NULL, &e) == NULL,
        "create: size 0 is refused");
    is (e.text, "pmi: size must be >= 1", "with its message");
    ok (pmi_server_create (1, "a b", NULL, NULL, &e) == NULL,
        "create: a kvsname with a space is refused");
    is (e.text, "pmi: kvsname must be 1 to 63 letters, digits, '-', '_' or '.'",
        "with its message");
    srv = pmi_server_create (2, "kvs", NULL, NULL, &e);
    fd = pmi_server_add_task (srv, 1, &e);
    ok (fd >= 0, "add_task: rank 1");
    ok (pmi_server_add_task (srv, 1, &e) < 0 && errno == EEXIST,
        "add_task: rank 1 again fails with EEXIST");
    is (e.text, "pmi: rank 1: added twice", "with its message");
    ok (pmi_server_add_task (srv, 2, &e) < 0 && errno == EINVAL,
        "add_task: rank 2 of 2 fails with EINVAL");
    is (e.text, "pmi: rank 2: not in 0-1", "with its message");
    ok (pmi_server_task_env (srv, 1, 5, env) == 0
            && !strcmp (env[0], "PMI_FD=5") && !strcmp (env[1], "PMI_RANK=1")
            && !strcmp (env[2], "PMI_SIZE=2")
            && !strcmp (env[3], "PMI_SPAWNED=0"),
        "task_env: PMI_FD, PMI_RANK, PMI_SIZE, PMI_SPAWNED");
    ok (pmi_server_handle (srv, 999, POLLIN, &e) < 0 && errno == EINVAL,
        "handle: an fd that is not a task's fails with EINVAL");
    ok (pmi_server_kvs_put (srv, "a=b", "1", &e) < 0,
        "kvs_put: a key with '=' is refused");
    close (fd);
    pmi_server_destroy (srv);
}

int main (void)
{
    plan (NO_PLAN);
    test_job ();
    test_kvs ();
    test_hook ();
    test_failed_barrier ();
    test_abort ();
    test_garbage ();
    test_oversized ();
    test_hangups ();
    test_api ();
    done_testing ();
}
