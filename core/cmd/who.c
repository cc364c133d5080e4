/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The submission context of a command: --user, --account, --queue (see
 * cmd.h and api/respol/context.h).
 *
 * The user defaults to the caller; the account and queue to what the
 * jobspec says (attributes.system.bank, attributes.system.queue), as
 * submitted.  The options are values, not privileges: respol runs no job
 * as that user, it only tells plugins who would submit it, so that a site
 * can try its policies on other users' behalf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/context.h>
#include <respol/jobspec.h>

#include "cmd.h"

int cmd_who_option (struct cmd_who *w, int c, const char *arg)
{
    if (c == CMD_OPT_USER)
        w->user = arg;
    else if (c == CMD_OPT_ACCOUNT)
        w->account = arg;
    else if (c == CMD_OPT_QUEUE)
        w->queue = arg;
    else
        return 0;
    return 1;
}

static const char *system_string (const struct rp_jobspec *js, const char *key)
{
    return js ? json_string_value (
               json_object_get (rp_jobspec_system (js), key))
              : NULL;
}

struct rp_context *cmd_context_user (const struct cmd_who *w, rp_error_t *error)
{
    struct rp_context *c = rp_context_create (RP_ORIGIN_COMMAND);

    if (!c) {
        rp_error_set (error, errno, "out of memory");
        return NULL;
    }
    if ((w->user ? rp_context_set_user (c, w->user, error)
                 : rp_context_set_caller (c, error))
        < 0) {
        rp_context_destroy (c);
        return NULL;
    }
    return c;
}

struct rp_context *cmd_context_from (const struct rp_context *user,
                                     const struct cmd_who *w,
                                     const struct rp_jobspec *js,
                                     rp_error_t *error)
{
    struct rp_context *c = rp_context_copy (user);
    const char *account = w->account ? w->account : system_string (js, "bank");
    const char *queue = w->queue ? w->queue : system_string (js, "queue");

    if (!c) {
        rp_error_set (error, errno, "out of memory");
        return NULL;
    }
    if (rp_context_set_account (c, account) < 0) {
        rp_error_set (error, errno, "account '%s': %s", account,
                      errno == EINVAL ? "empty or longer than 255 bytes"
                                      : strerror (errno));
        goto error;
    }
    if (rp_context_set_queue (c, queue) < 0) {
        rp_error_set (error, errno, "queue '%s': %s", queue,
                      errno == EINVAL ? "empty or longer than 255 bytes"
                                      : strerror (errno));
        goto error;
    }
    return c;
error:
    rp_context_destroy (c);
    return NULL;
}

struct rp_context *cmd_context (const struct cmd_who *w,
                                const struct rp_jobspec *js, rp_error_t *error)
{
    struct rp_context *user = cmd_context_user (w, error);
    struct rp_context *c = user ? cmd_context_from (user, w, js, error) : NULL;

    rp_context_destroy (user);
    return c;
}
