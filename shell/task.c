/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* One task of the job shell: its ids, its share, the decision the shell
 * plugins make for it (CPUs, GPUs, memory policy), its environment, and
 * the host's check of the decision (api/respol/shell.h).
 *
 * The environment is a JSON object, name -> value, which keeps the order
 * names were first set in: the job's environment (attributes.system.
 * environment), then the shell's RESPOL_* variables, then the plugins'.
 * rp_task_envp builds "NAME=VALUE" strings from it for execve.
 *
 * Decisions may be set only while the host runs task_init (sh->current is
 * the plugin in the call): a setter records that instance as the one to
 * name if the host refuses the decision.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/idset.h"
#include "respol/jobspec.h"

#include "core/plugin_private.h"
#include "shell/shell_private.h"

struct rp_task *task_create (struct rp_shell *sh, unsigned long global_id,
                             unsigned int local_id,
                             const struct rp_idset *cores,
                             const struct rp_idset *gpus)
{
    struct rp_task *t = calloc (1, sizeof (*t));

    if (!t)
        return NULL;
    t->sh = sh;
    t->global_id = global_id;
    t->local_id = local_id;
    if (!(t->share_cores = cores ? rp_idset_copy (cores) : rp_idset_create ())
        || !(t->share_gpus = gpus ? rp_idset_copy (gpus) : rp_idset_create ())
        || !(t->env = json_object ()) || !(t->env_by = json_object ())) {
        task_destroy (t);
        return NULL;
    }
    return t;
}

static void envp_free (struct rp_task *t)
{
    for (size_t i = 0; t->envp && t->envp[i]; i++)
        free (t->envp[i]);
    free (t->envp);
    t->envp = NULL;
}

void task_destroy (struct rp_task *t)
{
    if (!t)
        return;
    rp_idset_destroy (t->share_cores);
    rp_idset_destroy (t->share_gpus);
    rp_idset_destroy (t->cpus.set);
    rp_idset_destroy (t->gpus.set);
    rp_idset_destroy (t->mems.set);
    json_decref (t->env);
    json_decref (t->env_by);
    envp_free (t);
    free (t);
}

/* --- the environment ------------------------------------------------------ */

static bool name_ok (const char *name)
{
    return name && *name && !strchr (name, '=');
}

int rp_task_setenv (struct rp_task *t, const char *name, const char *value)
{
    json_t *v;

    if (!t || !name_ok (name) || !value || !(v = json_string (value))) {
        errno = EINVAL; /* json_string: NULL for invalid UTF-8 */
        return -1;
    }
    if (json_object_set_new (t->env, name, v) < 0
        || (t->sh->current
            && json_object_set_new (t->env_by, name,
                                    json_string (t->sh->current->instance))
                   < 0)) {
        errno = ENOMEM;
        return -1;
    }
    envp_free (t);
    return 0;
}

const char *rp_task_env_by (const struct rp_task *t, const char *name)
{
    return t && name ? json_string_value (json_object_get (t->env_by, name))
                     : NULL;
}

int rp_task_unsetenv (struct rp_task *t, const char *name)
{
    if (!t || !name_ok (name)) {
        errno = EINVAL;
        return -1;
    }
    json_object_del (t->env, name);
    if (t->sh->current)
        json_object_set_new (t->env_by, name,
                             json_string (t->sh->current->instance));
    envp_free (t);
    return 0;
}

const char *rp_task_getenv (const struct rp_task *t, const char *name)
{
    return t && name ? json_string_value (json_object_get (t->env, name))
                     : NULL;
}

char *const *rp_task_envp (struct rp_task *t)
{
    const char *name;
    json_t *v;
    size_t i = 0;

    if (!t)
        return NULL;
    if (t->envp)
        return t->envp;
    if (!(t->envp = calloc (json_object_size (t->env) + 1, sizeof (char *))))
        return NULL;
    json_object_foreach (t->env, name, v) {
        if (asprintf (&t->envp[i], "%s=%s", name, json_string_value (v)) < 0) {
            t->envp[i] = NULL;
            envp_free (t);
            return NULL;
        }
        i++;
    }
    return t->envp;
}

static int setenv_ul (struct rp_task *t, const char *name, unsigned long v)
{
    char buf[32];

    snprintf (buf, sizeof (buf), "%lu", v);
    return rp_task_setenv (t, name, buf);
}

int task_env_init (struct rp_task *t)
{
    const struct rp_shell *sh = t->sh;
    json_t *job = rp_jobspec_environment (sh->js);
    const char *name;
    json_t *v;

    json_object_foreach (job, name, v) {
        if (json_is_string (v)
            && rp_task_setenv (t, name, json_string_value (v)) < 0)
            return -1;
    }
    if (setenv_ul (t, "RESPOL_TASK_RANK", t->global_id) < 0
        || setenv_ul (t, "RESPOL_TASK_LOCAL_ID", t->local_id) < 0
        || setenv_ul (t, "RESPOL_JOB_SIZE", sh->ntasks_total) < 0
        || setenv_ul (t, "RESPOL_SHELL_RANK", sh->rank) < 0)
        return -1;
    return 0;
}

/* --- the decision ----------------------------------------------------------- */

unsigned long rp_task_global_id (const struct rp_task *t)
{
    return t ? t->global_id : 0;
}

unsigned int rp_task_local_id (const struct rp_task *t)
{
    return t ? t->local_id : 0;
}

struct rp_shell *rp_task_shell (const struct rp_task *t)
{
    return t ? t->sh : NULL;
}

const struct rp_idset *rp_task_share_cores (const struct rp_task *t)
{
    return t ? t->share_cores : NULL;
}

const struct rp_idset *rp_task_share_gpus (const struct rp_task *t)
{
    return t ? t->share_gpus : NULL;
}

/* Replace d with a copy of set (NULL: undecided), by the plugin in
 * task_init. */
static int decide (struct rp_task *t, struct decision *d,
                   const struct rp_idset *set)
{
    struct rp_idset *copy = NULL;

    if (!t || !t->sh->current) {
        errno = EINVAL;
        return -1;
    }
    if (set && !(copy = rp_idset_copy (set)))
        return -1;
    rp_idset_destroy (d->set);
    d->set = copy;
    d->by = t->sh->current->instance;
    return 0;
}

const struct rp_idset *rp_task_cpus (const struct rp_task *t)
{
    return t ? t->cpus.set : NULL;
}

int rp_task_set_cpus (struct rp_task *t, const struct rp_idset *cpus)
{
    return decide (t, t ? &t->cpus : NULL, cpus);
}

const struct rp_idset *rp_task_gpus (const struct rp_task *t)
{
    return t ? t->gpus.set : NULL;
}

int rp_task_set_gpus (struct rp_task *t, const struct rp_idset *gpus)
{
    return decide (t, t ? &t->gpus : NULL, gpus);
}

int rp_task_mem_policy (const struct rp_task *t)
{
    return t ? t->mem_policy : RP_MEM_DEFAULT;
}

const struct rp_idset *rp_task_mems (const struct rp_task *t)
{
    return t ? t->mems.set : NULL;
}

int rp_task_set_mem (struct rp_task *t, int policy,
                     const struct rp_idset *numas)
{
    if (!t || policy < RP_MEM_DEFAULT || policy > RP_MEM_PREFERRED
        || (policy != RP_MEM_DEFAULT && !numas)) {
        errno = EINVAL;
        return -1;
    }
    if (decide (t, &t->mems, policy == RP_MEM_DEFAULT ? NULL : numas) < 0)
        return -1;
    t->mem_policy = policy;
    return 0;
}

/* --- the host's check ------------------------------------------------------- */

/* set (decided by) must be a subset of held, and not empty unless
 * may_be_empty. */
static int check_set (const struct rp_task *t, const struct decision *d,
                      const struct rp_idset *held, const char *what,
                      bool may_be_empty, rp_error_t *error)
{
    char *s, *h;
    int rc;

    if (!d->set)
        return 0;
    if ((may_be_empty || !rp_idset_empty (d->set))
        && rp_idset_is_subset (d->set, held))
        return 0;
    s = rp_idset_encode (d->set, RP_IDSET_RANGES);
    h = rp_idset_encode (held, RP_IDSET_RANGES);
    if (rp_idset_empty (d->set))
        rc = rp_error_set (error, EINVAL,
                           "shell plugin '%s': task %lu: no %s", d->by,
                           t->global_id, what);
    else
        rc = rp_error_set (error, EINVAL,
                           "shell plugin '%s': task %lu: %s %s are not all "
                           "the job's on this target (%s)",
                           d->by, t->global_id, what, s ? s : "?",
                           h && *h ? h : "none");
    free (s);
    free (h);
    return rc;
}

int task_check (const struct rp_task *t, rp_error_t *error)
{
    const struct rp_shell *sh = t->sh;

    /* An empty GPU list is a decision (no GPU visible), not an error. */
    if (check_set (t, &t->cpus, sh->cpus, "CPUs", false, error) < 0
        || check_set (t, &t->gpus, sh->gpus, "GPUs", true, error) < 0)
        return -1;
    return check_set (t, &t->mems, sh->numas, "NUMA nodes", false, error);
}
