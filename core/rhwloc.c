/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* hwloc discovery: one RFC 20 execution target from an hwloc topology,
 * this machine's or an hwloc XML file's (rp_rset_from_hwloc in rset.h).
 *
 * Cores are the hwloc logical indices of the Core objects, which hwloc
 * numbers 0..n-1 among the allowed cores (disallowed ones, e.g. cores
 * outside our cgroup or left out of an XML dump, are not in the topology
 * by default).  A topology without Core objects uses its PUs instead.
 *
 * GPUs are OS devices of type GPU or COPROC made by a compute backend:
 * CUDA ("cuda0"), NVML ("nvml0"), RSMI ("rsmi0"), OpenCL ("opencl0d0") or
 * Level Zero ("ze0").  The backend is recognised by the object's subtype,
 * else by its "Backend" info, else by its name ("cuda" + digit, ...):
 * XML written by hwloc < 2.3 has NVML devices with no subtype, and display
 * devices ("card0", ":0.0") have neither.  Several backends may describe
 * the same card (coral-lassen has cuda0 and nvml0 under one PCI device),
 * so OS devices under the same PCI device count once; a device without a
 * PCI ancestor counts alone, and an OS device under another OS device (a
 * Level Zero sub-device) counts with its parent.  GPUs are numbered
 * 0..n-1 in topology order (hwloc's OS device order, depth first), as
 * flux-core does: that order, not the backend's own index, maps R's GPU
 * ids to devices (on eas-tioga GPU 0 is rsmi4, on the NUMA node of core 0).
 *
 * A topology with no compute OS device at all falls back to the PCI
 * devices that are GPUs by class and vendor (is_gpu_pci), in hwloc's PCI
 * order, which is the order their OS devices would have.  Debian's hwloc
 * has no CUDA, NVML, RSMI or Level Zero component (only OpenCL, in
 * libhwloc-plugins, which finds a GPU only through its vendor's OpenCL
 * ICD): on an NVIDIA H200 machine with Debian's hwloc, with or without
 * its plugins, the GPU is a PCI device (class 0302, vendor 10de) with no
 * OS device below it, and flux-core's rule finds no GPU.
 *
 * I/O objects are kept with HWLOC_TYPE_FILTER_KEEP_ALL, not _IMPORTANT,
 * so that every PCI device stays in the tree and the de-duplication does
 * not depend on which devices hwloc deems important.  On Linux the hwloc
 * "pci" component (libpciaccess) is disabled: the Linux backend finds the
 * same PCI devices in sysfs, and libpciaccess only adds vendor and device
 * names, at the cost of reading pci.ids and leaking about 1 KB per load
 * (pci_get_strings in libpciaccess 0.17), which sanitizer runs report.
 *
 * hwloc's plugins are optional.  Debian ships the "pci", "opencl", "gl"
 * and libxml2 XML components in libhwloc-plugins (a Recommends of
 * libhwloc15); without it hwloc has only its built-in components, and
 * blacklisting "pci" fails with EINVAL: a component that is not there
 * needs no blacklisting, so that failure is ignored.  The two XML readers
 * word their errors differently and treat a directory differently, so
 * respol opens and reads the file itself (a regular file, at most
 * RHWLOC_XML_MAX_BYTES) and hands hwloc the buffer: I/O errors are
 * respol's own, and whatever hwloc cannot parse is "not a valid hwloc XML
 * topology", whichever reader it used.
 *
 * An XML file is read in a child process.  hwloc 2.9 crashes (SIGSEGV in
 * hwloc_topology_load) on some malformed XML, e.g. a Machine object with a
 * nodeset but no complete_nodeset, and prints its own warnings on others;
 * a resource manager must survive a bad file.  The child builds the R,
 * sends it back encoded (or the error text), and the parent decodes it; a
 * child killed by a signal is reported as an invalid topology.  The
 * machine's own topology is loaded in process.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

#include <respol/rset.h>

#include "core/rhwloc_private.h"

struct topo_source {
    const char *xmlfile; /* NULL: this machine */
    const char *prefix;  /* of messages, e.g. "R: hwloc" */
    rp_error_t *error;
};

/* ENOTREG: respol's own errno value for "not a regular file" (read_xml). */
#define ENOTREG (-2)

static const char *xml_strerror (int errnum)
{
    switch (errnum) {
    case EINVAL: /* hwloc says EINVAL for anything it cannot parse */
        return "not a valid hwloc XML topology";
    case ENOTREG:
        return "not a regular file";
    case EFBIG:
        return "larger than " RHWLOC_XML_MAX_TEXT;
    default:
        return strerror (errnum);
    }
}

static int load_error (const struct topo_source *src, int errnum)
{
    if (!src->xmlfile)
        return rp_error_set (src->error, errnum,
                             "%s: this machine: cannot load topology: %s",
                             src->prefix, strerror (errnum));
    return rp_error_set (src->error, errnum == ENOTREG ? EINVAL : errnum,
                         "%s: %s: cannot load topology: %s", src->prefix,
                         src->xmlfile, xml_strerror (errnum));
}

/* Read all of the regular file path into a NUL terminated buffer (caller
 * frees).  -1 with errno: EISDIR, EINVAL (not a regular file), EFBIG (over
 * RHWLOC_XML_MAX_BYTES), or what open and read say.  O_NONBLOCK: a FIFO
 * is refused, not waited on. */
static int read_xml (const char *path, char **bufp, size_t *lenp)
{
    struct stat st;
    char *buf = NULL;
    size_t len = 0;
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return -1;
    if (fstat (fd, &st) < 0)
        goto error;
    if (!S_ISREG (st.st_mode)) {
        errno = S_ISDIR (st.st_mode) ? EISDIR : ENOTREG;
        goto error;
    }
    if (st.st_size > RHWLOC_XML_MAX_BYTES) {
        errno = EFBIG;
        goto error;
    }
    if (!(buf = malloc ((size_t)st.st_size + 1)))
        goto error;
    while (len < (size_t)st.st_size) {
        ssize_t n = read (fd, buf + len, (size_t)st.st_size - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto error;
        if (n == 0)
            break; /* the file shrank: parse what is there */
        len += (size_t)n;
    }
    close (fd);
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    return 0;
error:;
    int saved_errno = errno;
    free (buf);
    close (fd);
    errno = saved_errno;
    return -1;
}

static int topology_load (hwloc_topology_t *topop,
                          const struct topo_source *src)
{
    hwloc_topology_t topo;
    char *xml = NULL;
    size_t xmllen = 0;

    /* The ABI of hwloc changes with its major version. */
    if ((hwloc_get_api_version () >> 16) != (HWLOC_API_VERSION >> 16))
        return rp_error_set (
            src->error, EINVAL, "%s: library version %#x, built for %#x",
            src->prefix, hwloc_get_api_version (), HWLOC_API_VERSION);
    if (src->xmlfile && read_xml (src->xmlfile, &xml, &xmllen) < 0)
        return load_error (src, errno);
    if (hwloc_topology_init (&topo) < 0) {
        free (xml);
        return load_error (src, errno);
    }
    errno = 0; /* hwloc does not always set errno when it fails */
    if (hwloc_topology_set_io_types_filter (topo, HWLOC_TYPE_FILTER_KEEP_ALL)
        < 0)
        goto error_destroy;
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
    /* EINVAL: no such component (hwloc's plugins are not installed). */
    if (!src->xmlfile
        && hwloc_topology_set_components (
               topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci")
               < 0
        && errno != EINVAL)
        goto error_destroy;
    errno = 0;
#endif
    /* hwloc wants the length with the terminating NUL. */
    if (xml && hwloc_topology_set_xmlbuffer (topo, xml, (int)xmllen + 1) < 0)
        goto error_destroy;
    if (hwloc_topology_load (topo) < 0)
        goto error_destroy;
    free (xml);
    *topop = topo;
    return 0;
error_destroy:;
    int saved_errno = errno ? errno : EINVAL;
    hwloc_topology_destroy (topo);
    free (xml);
    /* Anything hwloc refuses in a file respol could read is a bad file. */
    return load_error (src, src->xmlfile ? EINVAL : saved_errno);
}

int rhwloc_load (hwloc_topology_t *topo, const char *xmlfile,
                 const char *prefix, rp_error_t *error)
{
    struct topo_source src = { .xmlfile = xmlfile,
                               .prefix = prefix,
                               .error = error };
    return topology_load (topo, &src);
}

int rp_topology_load_local (struct hwloc_topology **topo, rp_error_t *error)
{
    if (!topo) {
        rp_error_set (error, EINVAL, "hwloc: invalid argument");
        return -1;
    }
    return rhwloc_load (topo, NULL, "hwloc", error);
}

static struct rp_idset *topology_cores (hwloc_topology_t topo,
                                        rp_error_t *error)
{
    struct rp_idset *cores;
    int n = hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE);

    if (n == 0)
        n = hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_PU);
    if (n <= 0) {
        rp_error_set (error, EINVAL, "R: hwloc: topology has no cores");
        return NULL;
    }
    /* Logical indices of one type are exactly 0..n-1. */
    if (!(cores = rp_idset_create ())
        || rp_idset_add_range (cores, 0, (unsigned int)n - 1) < 0) {
        rp_error_set (error, errno, "R: hwloc: %s", strerror (errno));
        rp_idset_destroy (cores);
        return NULL;
    }
    return cores;
}

static bool in_list (const char *s, const char *const *list)
{
    for (size_t i = 0; s && list[i]; i++)
        if (!strcmp (s, list[i]))
            return true;
    return false;
}

static bool name_has_prefix (const char *name, const char *const *prefixes)
{
    for (size_t i = 0; name && prefixes[i]; i++) {
        size_t len = strlen (prefixes[i]);
        if (!strncmp (name, prefixes[i], len) && name[len] >= '0'
            && name[len] <= '9')
            return true;
    }
    return false;
}

static bool is_compute_gpu (hwloc_obj_t o)
{
    static const char *const backends[] = { "CUDA",   "NVML",      "RSMI",
                                            "OpenCL", "LevelZero", NULL };
    static const char *const prefixes[] = { "cuda",   "nvml", "rsmi",
                                            "opencl", "ze",   NULL };

    if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU
        && o->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC)
        return false;
    if (o->parent && o->parent->type == HWLOC_OBJ_OS_DEVICE)
        return false; /* a sub-device: its parent counts */
    return in_list (o->subtype, backends)
           || in_list (hwloc_obj_get_info_by_name (o, "Backend"), backends)
           || name_has_prefix (o->name, prefixes);
}

hwloc_obj_t rhwloc_pci_ancestor (hwloc_obj_t o)
{
    while (o && o->type != HWLOC_OBJ_PCI_DEVICE)
        o = o->parent;
    return o;
}

/* A PCI device that is a GPU by its class and vendor: a 3D or display
 * controller (0x0302, 0x0380) from NVIDIA, AMD or Intel, or a VGA
 * controller (0x0300) from NVIDIA or AMD (AMD's MI50 and MI100 present
 * themselves as VGA; Intel's VGA devices are integrated graphics).  BMC
 * display chips (ASPEED, Matrox) are none of these vendors. */
static bool is_gpu_pci (hwloc_obj_t o)
{
    unsigned short class_id = o->attr->pcidev.class_id;
    unsigned short vendor = o->attr->pcidev.vendor_id;
    bool nvidia = vendor == 0x10de, amd = vendor == 0x1002,
         intel = vendor == 0x8086;

    if (class_id == 0x0302 || class_id == 0x0380)
        return nvidia || amd || intel;
    return class_id == 0x0300 && (nvidia || amd);
}

/* Without a compute OS device anywhere: the GPU PCI devices, in hwloc's
 * order (the order their OS devices would have). */
static unsigned int pci_gpus (hwloc_topology_t topo, hwloc_obj_t *gpus,
                              unsigned int max)
{
    unsigned int n = 0;
    hwloc_obj_t o = NULL;

    while ((o = hwloc_get_next_pcidev (topo, o))) {
        if (!is_gpu_pci (o))
            continue;
        if (n < max)
            gpus[n] = o;
        n++;
    }
    return n;
}

/* One pass over the OS devices; a PCI device already counted is marked
 * through its userdata, and the marks are cleared afterwards so that the
 * topology can be asked again.  No compute device at all: the PCI
 * fallback. */
unsigned int rhwloc_gpus (hwloc_topology_t topo, hwloc_obj_t *gpus,
                          unsigned int max)
{
    static char counted;
    unsigned int n = 0;
    hwloc_obj_t o = NULL;

    while ((o = hwloc_get_next_osdev (topo, o))) {
        hwloc_obj_t pci;
        if (!is_compute_gpu (o))
            continue;
        if ((pci = rhwloc_pci_ancestor (o))) {
            if (pci->userdata == &counted)
                continue;
            pci->userdata = &counted;
        }
        if (n < max)
            gpus[n] = o;
        n++;
    }
    while ((o = hwloc_get_next_osdev (topo, o))) {
        hwloc_obj_t pci = rhwloc_pci_ancestor (o);
        if (pci && pci->userdata == &counted)
            pci->userdata = NULL;
    }
    return n > 0 ? n : pci_gpus (topo, gpus, max);
}

static struct rp_idset *topology_gpus (hwloc_topology_t topo, rp_error_t *error)
{
    unsigned int n = rhwloc_gpus (topo, NULL, 0);
    struct rp_idset *gpus = rp_idset_create ();

    if (!gpus || (n > 0 && rp_idset_add_range (gpus, 0, n - 1) < 0)) {
        rp_error_set (error, errno, "R: hwloc: %s", strerror (errno));
        rp_idset_destroy (gpus);
        return NULL;
    }
    return gpus;
}

/* The argument, else the topology's HostName, else gethostname(). */
const char *rhwloc_hostname (hwloc_topology_t topo, const char *hostname,
                             char *buf, size_t size, const char *prefix,
                             rp_error_t *error)
{
    const char *s;

    if (hostname)
        return hostname;
    s = hwloc_obj_get_info_by_name (hwloc_get_root_obj (topo), "HostName");
    if (s && *s)
        return s;
    if (gethostname (buf, size) < 0) {
        rp_error_set (error, errno, "%s: gethostname: %s", prefix,
                      strerror (errno));
        return NULL;
    }
    buf[size - 1] = '\0';
    return buf;
}

static struct rp_rset *from_topology (unsigned int rank, const char *hostname,
                                      const char *xmlfile, rp_error_t *error)
{
    char hostbuf[HOST_NAME_MAX + 1];
    hwloc_topology_t topo = NULL;
    struct rp_idset *cores = NULL;
    struct rp_idset *gpus = NULL;
    struct rp_rset *r = NULL;
    const char *host;

    if (rhwloc_load (&topo, xmlfile, "R: hwloc", error) < 0)
        return NULL;
    if (!(cores = topology_cores (topo, error))
        || !(gpus = topology_gpus (topo, error))
        || !(host = rhwloc_hostname (topo, hostname, hostbuf, sizeof (hostbuf),
                                     "R: hwloc", error)))
        goto error;
    if (!(r = rp_rset_create ())) {
        rp_error_set (error, errno, "R: hwloc: %s", strerror (errno));
        goto error;
    }
    if (rp_rset_add_target (r, rank, host, cores, gpus, error) < 0) {
        if (xmlfile)
            rp_error_prefix (error, "R: hwloc: %s", xmlfile);
        else
            rp_error_prefix (error, "R: hwloc");
        goto error;
    }
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    hwloc_topology_destroy (topo);
    return r;
error:;
    int saved_errno = errno;
    rp_rset_destroy (r);
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    hwloc_topology_destroy (topo);
    errno = saved_errno;
    return NULL;
}

/* Write all of buf to fd.  0 or -1. */
static int write_all (int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read fd to the end into a NUL terminated buffer (caller frees). */
static char *read_all (int fd, size_t *lenp)
{
    size_t size = 4096, len = 0;
    char *buf = malloc (size);

    while (buf) {
        ssize_t n = read (fd, buf + len, size - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto error;
        if (n == 0)
            break;
        len += (size_t)n;
        if (len + 1 == size) {
            char *nbuf = realloc (buf, size *= 2);
            if (!nbuf)
                goto error;
            buf = nbuf;
        }
    }
    if (buf) {
        buf[len] = '\0';
        *lenp = len;
    }
    return buf;
error:
    free (buf);
    return NULL;
}

/* In the child: run fn, write "R<text>" or "E<errno> <error text>" to fd. */
static void __attribute__ ((noreturn))
child_main (int fd, rhwloc_child_f fn, void *arg)
{
    rp_error_t error;
    char *s;
    int devnull = open ("/dev/null", O_WRONLY);

    /* hwloc prints its own warnings about bad XML: keep them off our
     * caller's terminal; the error text says what went wrong. */
    if (devnull >= 0)
        dup2 (devnull, STDERR_FILENO);
    /* Die of the signal itself, even under a sanitizer's handler, so the
     * parent can tell a crash from an error. */
    signal (SIGSEGV, SIG_DFL);
    signal (SIGBUS, SIG_DFL);
    signal (SIGFPE, SIG_DFL);
    signal (SIGILL, SIG_DFL);
    errno = 0;
    if (!(s = fn (arg, &error))) {
        char msg[32 + RP_ERROR_TEXT_SIZE];
        int n = snprintf (msg, sizeof (msg), "E%d %s", errno ? errno : EINVAL,
                          error.text);
        write_all (fd, msg,
                   (size_t)n < sizeof (msg) ? (size_t)n : sizeof (msg) - 1);
        _exit (1);
    }
    if (write_all (fd, "R", 1) < 0 || write_all (fd, s, strlen (s)) < 0) {
        free (s);
        _exit (1);
    }
    free (s);
    _exit (0);
}

/* The child's text (moved to the front of reply), or NULL with error. */
static char *from_child_reply (const char *xmlfile, const char *prefix,
                               char *reply, int status, rp_error_t *error)
{
    if (WIFSIGNALED (status))
        return rp_error_set (error, EINVAL,
                             "%s: %s: cannot load topology: not a valid "
                             "hwloc XML topology (hwloc died reading it: %s)",
                             prefix, xmlfile, strsignal (WTERMSIG (status))),
               NULL;
    if (WIFEXITED (status) && WEXITSTATUS (status) == 0 && reply[0] == 'R') {
        memmove (reply, reply + 1, strlen (reply));
        return reply;
    }
    if (reply[0] == 'E') {
        char *end;
        long errnum = strtol (reply + 1, &end, 10);
        return rp_error_set (error, errnum > 0 ? (int)errnum : EINVAL, "%s",
                             *end == ' ' ? end + 1 : end),
               NULL;
    }
    return rp_error_set (error, EIO, "%s: %s: the process reading it failed",
                         prefix, xmlfile),
           NULL;
}

char *rhwloc_run_child (const char *xmlfile, const char *prefix,
                        rhwloc_child_f fn, void *arg, rp_error_t *error)
{
    int fds[2];
    pid_t pid;
    int status;
    size_t len;
    char *reply;
    char *s;

    if (pipe2 (fds, O_CLOEXEC) < 0)
        return rp_error_set (error, errno, "%s: pipe: %s", prefix,
                             strerror (errno)),
               NULL;
    fflush (NULL);
    if ((pid = fork ()) < 0) {
        int saved_errno = errno;
        close (fds[0]);
        close (fds[1]);
        return rp_error_set (error, saved_errno, "%s: fork: %s", prefix,
                             strerror (saved_errno)),
               NULL;
    }
    if (pid == 0) {
        close (fds[0]);
        child_main (fds[1], fn, arg);
    }
    close (fds[1]);
    reply = read_all (fds[0], &len);
    close (fds[0]);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!reply)
        return rp_error_set (error, ENOMEM, "%s: out of memory", prefix), NULL;
    if (!(s = from_child_reply (xmlfile, prefix, reply, status, error)))
        free (reply);
    return s;
}

struct rset_args {
    unsigned int rank;
    const char *hostname;
    const char *xmlfile;
};

static char *rset_child (void *arg, rp_error_t *error)
{
    struct rset_args *a = arg;
    struct rp_rset *r;
    char *s;

    if (!(r = from_topology (a->rank, a->hostname, a->xmlfile, error)))
        return NULL;
    if (!(s = rp_rset_encode (r, 0)))
        rp_error_set (error, errno ? errno : ENOMEM, "R: hwloc: out of memory");
    rp_rset_destroy (r);
    return s;
}

struct rp_rset *rp_rset_from_hwloc (unsigned int rank, const char *hostname,
                                    const char *xmlfile, rp_error_t *error)
{
    struct rset_args args = { rank, hostname, xmlfile };
    struct rp_rset *r;
    char *reply;

    if (!xmlfile)
        return from_topology (rank, hostname, NULL, error);
    if (!(reply =
              rhwloc_run_child (xmlfile, "R: hwloc", rset_child, &args, error)))
        return NULL;
    r = rp_rset_decode (reply, error);
    free (reply);
    return r;
}
