/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the submission context (api/respol/context.h).
 *
 * Users: root (uid 0) and the Debian base system's "daemon" (uid 1) and
 * "nobody" (uid 65534) are in every password database this runs on; uid
 * 3999999 is in none.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <respol/context.h>

#include "t/tap/tap.h"

static void test_create (void)
{
    struct rp_context *c;
    uint32_t u = 7;
    uint64_t id = 7;
    double t = 7;

    errno = 0;
    ok (rp_context_create (5) == NULL && errno == EINVAL,
        "create: an unknown origin fails with EINVAL");
    errno = 0;
    ok (rp_context_create (-1) == NULL && errno == EINVAL,
        "create: a negative origin fails with EINVAL");
    c = rp_context_create (RP_ORIGIN_FLUX);
    ok (c != NULL, "create: origin flux");
    is (rp_context_origin_name (rp_context_origin (c)), "flux",
        "origin name flux");
    ok (!rp_context_uid (c, &u) && u == 7, "uid absent, output untouched");
    ok (rp_context_user (c) == NULL, "user absent");
    ok (rp_context_ngroups (c) == 0 && !rp_context_group (c, 0, &u),
        "no groups");
    ok (rp_context_account (c) == NULL && rp_context_queue (c) == NULL,
        "account and queue absent");
    ok (!rp_context_jobid (c, &id) && id == 7, "jobid absent");
    ok (!rp_context_submit_time (c, &t) && t == 7, "submit time absent");
    rp_context_destroy (c);

    ok (rp_context_uid (NULL, &u) == false && rp_context_user (NULL) == NULL
            && rp_context_origin (NULL) == RP_ORIGIN_UNKNOWN
            && rp_context_ngroups (NULL) == 0
            && !rp_context_in_group (NULL, 0),
        "NULL: everything absent");
    is (rp_context_origin_name (RP_ORIGIN_UNKNOWN), "unknown", "unknown");
    is (rp_context_origin_name (RP_ORIGIN_COMMAND), "command", "command");
    is (rp_context_origin_name (RP_ORIGIN_SLURM), "slurm", "slurm");
    is (rp_context_origin_name (RP_ORIGIN_SIMULATOR), "simulator",
        "simulator");
    ok (rp_context_origin_name (42) == NULL, "origin 42 has no name");
    errno = 42;
    rp_context_destroy (NULL);
    ok (errno == 42, "destroy (NULL) keeps errno");
}

static const struct {
    const char *in;
    int errnum; /* 0: valid */
    const char *user;
    unsigned long uid;
    const char *error;
} users[] = {
    { "root", 0, "root", 0, NULL },
    { "0", 0, "root", 0, NULL },
    { "daemon", 0, "daemon", 1, NULL },
    { "1", 0, "daemon", 1, NULL },
    { "65534", 0, "nobody", 65534, NULL },
    { "3999999", 0, NULL, 3999999, NULL },
    { "no-such-user-here", ENOENT, NULL, 0,
      "unknown user 'no-such-user-here'" },
    { "12ab", ENOENT, NULL, 0, "unknown user '12ab'" },
    { "", EINVAL, NULL, 0, "user: empty value" },
    { "-1", EINVAL, NULL, 0, "user '-1': not a name or a uid" },
    { "+5", EINVAL, NULL, 0, "user '+5': not a name or a uid" },
    { "4294967295", EINVAL, NULL, 0,
      "user '4294967295': not a name or a uid" },
    { "99999999999999999999", EINVAL, NULL, 0,
      "user '99999999999999999999': not a name or a uid" },
};

static void test_users (void)
{
    for (size_t i = 0; i < sizeof (users) / sizeof (users[0]); i++) {
        struct rp_context *c = rp_context_create (RP_ORIGIN_COMMAND);
        rp_error_t error = { { 0 } };
        uint32_t uid = 12345;
        int rc;

        errno = 0;
        rc = rp_context_set_user (c, users[i].in, &error);
        if (users[i].errnum) {
            ok (rc < 0 && errno == users[i].errnum, "user '%s' fails with %s",
                users[i].in, strerror (users[i].errnum));
            is (error.text, users[i].error, "user '%s': message",
                users[i].in);
            ok (!rp_context_uid (c, &uid) && rp_context_user (c) == NULL,
                "user '%s': the context is unchanged", users[i].in);
        } else {
            ok (rc == 0, "user '%s' is valid", users[i].in);
            ok (rp_context_uid (c, &uid) && uid == users[i].uid,
                "user '%s': uid %lu", users[i].in, users[i].uid);
            if (users[i].user)
                is (rp_context_user (c), users[i].user, "user '%s': name %s",
                    users[i].in, users[i].user);
            else
                ok (rp_context_user (c) == NULL && rp_context_ngroups (c) == 0,
                    "user '%s': no name, no groups (not in the database)",
                    users[i].in);
        }
        rp_context_destroy (c);
    }
}

static void test_groups_and_caller (void)
{
    struct rp_context *c = rp_context_create (RP_ORIGIN_COMMAND);
    rp_error_t error;
    uint32_t gid = 99, uid;

    ok (rp_context_set_user (c, "root", &error) == 0, "set user root");
    ok (rp_context_ngroups (c) >= 1, "root has at least one group");
    ok (rp_context_group (c, 0, &gid) && gid == 0,
        "root's first group is its primary group, 0");
    ok (rp_context_in_group (c, 0), "root is in group 0");
    ok (!rp_context_group (c, rp_context_ngroups (c), &gid),
        "a group index past the end is absent");
    /* Setting another user replaces everything about the first. */
    ok (rp_context_set_user (c, "3999999", &error) == 0
            && rp_context_ngroups (c) == 0 && !rp_context_in_group (c, 0)
            && rp_context_user (c) == NULL,
        "a new user replaces name and groups");
    ok (rp_context_set_caller (c, &error) == 0 && rp_context_uid (c, &uid)
            && uid == (uint32_t)geteuid (),
        "set_caller: the effective uid");
    rp_context_destroy (c);
}

static void test_fields (void)
{
    struct rp_context *c = rp_context_create (RP_ORIGIN_COMMAND), *d;
    char long_name[RP_CONTEXT_NAME_MAX + 2];
    rp_error_t error;
    uint64_t id;
    double t;

    memset (long_name, 'a', sizeof (long_name) - 1);
    long_name[sizeof (long_name) - 1] = '\0';
    ok (rp_context_set_account (c, "physics") == 0
            && !strcmp (rp_context_account (c), "physics"),
        "account set");
    ok (rp_context_set_queue (c, "batch") == 0
            && !strcmp (rp_context_queue (c), "batch"),
        "queue set");
    errno = 0;
    ok (rp_context_set_account (c, "") < 0 && errno == EINVAL
            && !strcmp (rp_context_account (c), "physics"),
        "an empty account fails with EINVAL, keeping the old one");
    errno = 0;
    ok (rp_context_set_queue (c, long_name) < 0 && errno == EINVAL
            && !strcmp (rp_context_queue (c), "batch"),
        "a queue of %d bytes fails with EINVAL", RP_CONTEXT_NAME_MAX + 1);
    long_name[RP_CONTEXT_NAME_MAX] = '\0';
    ok (rp_context_set_queue (c, long_name) == 0,
        "a queue of %d bytes is fine", RP_CONTEXT_NAME_MAX);
    ok (rp_context_set_queue (c, NULL) == 0 && rp_context_queue (c) == NULL,
        "NULL makes the queue absent again");
    rp_context_set_jobid (c, 42);
    ok (rp_context_jobid (c, &id) && id == 42, "jobid 42");
    ok (rp_context_set_submit_time (c, 1700000000.5) == 0
            && rp_context_submit_time (c, &t) && t == 1700000000.5,
        "submit time");
    errno = 0;
    ok (rp_context_set_submit_time (c, -1) < 0 && errno == EINVAL,
        "a negative submit time fails with EINVAL");
    errno = 0;
    ok (rp_context_set_submit_time (c, NAN) < 0 && errno == EINVAL,
        "NaN fails with EINVAL");
    ok (rp_context_submit_time (c, &t) && t == 1700000000.5,
        "the submit time is unchanged");
    rp_context_set_user (c, "daemon", &error);

    d = rp_context_copy (c);
    rp_context_destroy (c);
    ok (d && !strcmp (rp_context_user (d), "daemon")
            && !strcmp (rp_context_account (d), "physics")
            && rp_context_queue (d) == NULL && rp_context_jobid (d, &id)
            && id == 42 && rp_context_origin (d) == RP_ORIGIN_COMMAND
            && rp_context_ngroups (d) >= 1,
        "a copy outlives its original, with every field");
    c = rp_context_copy (d);
    ok (c && rp_context_set_account (d, "physics") == 0
            && rp_context_set_account (d, "chemistry") == 0
            && rp_context_set_queue (d, "batch") == 0
            && rp_context_set_user (d, "root", &error) == 0
            && !strcmp (rp_context_account (d), "chemistry")
            && !strcmp (rp_context_queue (d), "batch")
            && !strcmp (rp_context_user (d), "root"),
        "a copy's fields set again, each its own allocation now");
    ok (!strcmp (rp_context_account (c), "physics")
            && !strcmp (rp_context_user (c), "daemon")
            && rp_context_queue (c) == NULL,
        "... and the copy of the copy keeps the values it was made with");
    ok (rp_context_set_account (c, NULL) == 0 && rp_context_account (c) == NULL
            && rp_context_set_account (c, rp_context_user (c)) == 0
            && !strcmp (rp_context_account (c), "daemon"),
        "a copy's account cleared, then set from its own user name");
    rp_context_destroy (c);
    rp_context_destroy (d);
    errno = 0;
    ok (rp_context_copy (NULL) == NULL && errno == EINVAL,
        "copy (NULL) fails with EINVAL");
}

int main (void)
{
    plan (NO_PLAN);
    test_create ();
    test_users ();
    test_groups_and_caller ();
    test_fields ();
    return done_testing ();
}
