/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of rp_rset_from_hwloc (core/rhwloc.c).
 *
 * The four real topologies of t/data/topologies/ pin the whole R; small
 * XML topologies written by the test pin one GPU rule each (which OS
 * devices count, de-duplication by PCI device, sub-devices) and the PU
 * fallback.  The data directory is found through RESPOL_SRCDIR, which
 * `make check` exports; run by hand with RESPOL_SRCDIR=/path/to/source.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <respol/rset.h>

#include "core/rhwloc_private.h"
#include "t/tap/tap.h"

static const char *srcdir (void)
{
    const char *s = getenv ("RESPOL_SRCDIR");
    return s ? s : ".";
}

static char *topology_path (const char *name)
{
    static char path[4096];
    snprintf (path, sizeof (path), "%s/t/data/topologies/%s", srcdir (), name);
    return path;
}

/* Encode an idset with ranges, or "(null)". Returns a static buffer. */
static const char *ids (const struct rp_idset *set)
{
    static char buf[128];
    char *s = set ? rp_idset_encode (set, RP_IDSET_RANGES) : NULL;
    snprintf (buf, sizeof (buf), "%s", s ? s : "(null)");
    free (s);
    return buf;
}

static const struct {
    const char *file;
    const char *host;
    const char *cores;
    const char *gpus;
} real[] = {
    /* 2 POWER9, 40 Core objects in the dump (the cores left to jobs);
     * 4 V100, each seen by CUDA and by NVML under one PCI device. */
    { "coral-lassen.xml", "lassen28", "0-39", "0-3" },
    /* 1 x 64-core EPYC 7A53, 8 MI200 GCDs seen by RSMI. */
    { "eas-tioga.xml", "tioga29", "0-63", "0-7" },
    /* 2 x 24-core EPYC 7401, 4 Vega 20 seen by OpenCL. */
    { "epyc-corona.xml", "corona145", "0-47", "0-3" },
    /* 2 x 18-core Xeon E5-2695 v4, SMT off, no GPU. */
    { "cts1-quartz-smt1.xml", "quartz386", "0-35", "" },
    /* A 16-core VM with one NVIDIA H200, dumped by Debian's hwloc 2.9:
     * no OS device for the GPU (no CUDA or NVML component), found by its
     * PCI class and vendor. */
    { "h200-vm.xml", "vm", "0-15", "0" },
    /* The same with one NVIDIA H100 (another PCI device id). */
    { "h100-vm.xml", "vm", "0-15", "0" },
};

static void test_real_topologies (void)
{
    for (size_t i = 0; i < sizeof (real) / sizeof (real[0]); i++) {
        rp_error_t error = { { 0 } };
        struct rp_rset *r;
        char want[512];
        char *s;

        r = rp_rset_from_hwloc (0, NULL, topology_path (real[i].file), &error);
        ok (r != NULL, "%s: loads", real[i].file);
        if (!r) {
            diag ("%s", error.text);
            continue;
        }
        is (rp_rset_hostname (r, 0), real[i].host, "%s: host name %s",
            real[i].file, real[i].host);
        is (ids (rp_rset_cores (r, 0)), real[i].cores, "%s: cores %s",
            real[i].file, real[i].cores);
        is (ids (rp_rset_gpus (r, 0)), real[i].gpus, "%s: gpus '%s'",
            real[i].file, real[i].gpus);
        snprintf (want, sizeof (want),
                  "{\"execution\":{\"R_lite\":[{\"children\":{\"core\":"
                  "\"%s\"%s%s%s},\"rank\":\"0\"}],\"expiration\":0.0,"
                  "\"nodelist\":[\"%s\"],\"starttime\":0.0},\"version\":1}",
                  real[i].cores, *real[i].gpus ? ",\"gpu\":\"" : "",
                  real[i].gpus, *real[i].gpus ? "\"" : "", real[i].host);
        s = rp_rset_encode (r, 0);
        is (s, want, "%s: R is pinned", real[i].file);
        free (s);
        rp_rset_destroy (r);
    }
}

static void test_rank_and_hostname (void)
{
    rp_error_t error = { { 0 } };
    struct rp_rset *r;

    r = rp_rset_from_hwloc (7, "node7", topology_path ("coral-lassen.xml"),
                            &error);
    ok (r != NULL && rp_rset_ntargets (r) == 1,
        "rank and host name arguments: one target");
    is (ids (rp_rset_ranks (r)), "7", "the target has the rank given");
    is (rp_rset_hostname (r, 7), "node7", "host name argument wins");
    is (ids (rp_rset_gpus (r, 7)), "0-3", "GPUs do not depend on the rank");
    rp_rset_destroy (r);
}

/* Write a small topology: two PUs and no Core (so cores come from PUs),
 * plus the I/O objects of snippet under the Machine.  Returns the path in
 * a static buffer, or NULL. */
static const char *write_topology (const char *hostinfo, const char *snippet)
{
    static char path[256];
    const char *tmp = getenv ("TMPDIR");
    FILE *f;
    int fd;

    snprintf (path, sizeof (path), "%s/rhwloc-XXXXXX", tmp ? tmp : "/tmp");
    if ((fd = mkstemp (path)) < 0 || !(f = fdopen (fd, "w")))
        return NULL;
    fprintf (
        f,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
        "<topology version=\"2.0\">\n"
        "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\""
        " complete_cpuset=\"0x3\" allowed_cpuset=\"0x3\" nodeset=\"0x1\""
        " complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
        "%s\n"
        "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\""
        " complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
        " gp_index=\"2\" local_memory=\"1000000\"/>\n"
        "<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\""
        " complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
        " gp_index=\"3\"/>\n"
        "<object type=\"PU\" os_index=\"1\" cpuset=\"0x2\""
        " complete_cpuset=\"0x2\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
        " gp_index=\"4\"/>\n"
        "%s\n"
        "</object>\n"
        "</topology>\n",
        hostinfo, snippet);
    if (fclose (f) != 0)
        return NULL;
    return path;
}

#define OSDEV(gp, name, type, inner)                                           \
    "<object type=\"OSDev\" gp_index=\"" gp "\" name=\"" name                  \
    "\" osdev_type=\"" type "\"" inner "</object>"
#define PCIDEV(gp, busid, inner)                                               \
    "<object type=\"PCIDev\" gp_index=\"" gp "\" pci_busid=\"" busid           \
    "\" pci_type=\"0302 [10de:1db1] [0000:0000] a1\">" inner "</object>"
#define BACKEND(b) "<info name=\"Backend\" value=\"" b "\"/>"

/* osdev_type: 0 block, 1 GPU, 2 network, 5 co-processor. */
static const struct {
    const char *what;
    const char *snippet;
    unsigned int ngpus;
} gpu_rules[] = {
    { "no OS device", "", 0 },
    { "subtype CUDA", OSDEV ("10", "cuda0", "5", " subtype=\"CUDA\">"), 1 },
    { "subtype RSMI", OSDEV ("10", "rsmi0", "1", " subtype=\"RSMI\">"), 1 },
    { "subtype OpenCL", OSDEV ("10", "opencl0d0", "5", " subtype=\"OpenCL\">"),
      1 },
    { "subtype LevelZero", OSDEV ("10", "ze0", "5", " subtype=\"LevelZero\">"),
      1 },
    { "subtype NVML", OSDEV ("10", "nvml0", "1", " subtype=\"NVML\">"), 1 },
    { "Backend info only (hwloc < 2.3 NVML)",
      OSDEV ("10", "dev0", "1", ">" BACKEND ("NVML")), 1 },
    { "name only: cuda, nvml, rsmi, opencl, ze + digit",
      OSDEV ("10", "cuda0", "5", ">") OSDEV ("11", "nvml1", "1", ">")
          OSDEV ("12", "rsmi2", "1", ">") OSDEV ("13", "opencl0d3", "5", ">")
              OSDEV ("14", "ze4", "5", ">"),
      5 },
    { "name prefix without a digit does not count",
      OSDEV ("10", "cudax", "5", ">") OSDEV ("11", "zebra", "5", ">"), 0 },
    { "display GPU (DRM card0, Backend Linux) does not count",
      OSDEV ("10", "card0", "1", ">" BACKEND ("Linux")), 0 },
    { "co-processor of another kind does not count",
      OSDEV ("10", "accel0", "5", " subtype=\"Foo\">"), 0 },
    { "a block device named like a GPU does not count",
      OSDEV ("10", "cuda9", "0", ">") OSDEV ("11", "ze1", "2", ">"), 0 },
    { "CUDA and NVML under one PCI device count once",
      PCIDEV ("20", "0000:01:00.0",
              OSDEV ("10", "cuda0", "5", " subtype=\"CUDA\">")
                  OSDEV ("11", "nvml0", "1", ">" BACKEND ("NVML"))),
      1 },
    { "two PCI devices count twice",
      PCIDEV ("20", "0000:01:00.0",
              OSDEV ("10", "cuda0", "5", " subtype=\"CUDA\">"))
          PCIDEV ("21", "0000:02:00.0",
                  OSDEV ("11", "cuda1", "5", " subtype=\"CUDA\">")),
      2 },
    { "OS devices without a PCI device count alone",
      OSDEV ("10", "cuda0", "5", " subtype=\"CUDA\">")
          OSDEV ("11", "nvml0", "1", " subtype=\"NVML\">"),
      2 },
    { "a sub-device counts with its parent",
      OSDEV ("10", "ze0", "5",
             " subtype=\"LevelZero\">" OSDEV ("11", "ze0.0", "5",
                                              " subtype=\"LevelZero\">")),
      1 },
};

static void test_gpu_rules (void)
{
    for (size_t i = 0; i < sizeof (gpu_rules) / sizeof (gpu_rules[0]); i++) {
        const char *path = write_topology ("", gpu_rules[i].snippet);
        rp_error_t error = { { 0 } };
        struct rp_rset *r = NULL;
        char want[64] = "";

        if (path)
            r = rp_rset_from_hwloc (0, "h", path, &error);
        ok (r != NULL, "%s: loads", gpu_rules[i].what);
        if (!r)
            diag ("%s", path ? error.text : strerror (errno));
        if (gpu_rules[i].ngpus > 0)
            snprintf (want, sizeof (want), "0-%u", gpu_rules[i].ngpus - 1);
        if (gpu_rules[i].ngpus == 1)
            snprintf (want, sizeof (want), "0");
        is (ids (rp_rset_gpus (r, 0)), r ? want : "(null)", "%s: gpus '%s'",
            gpu_rules[i].what, want);
        rp_rset_destroy (r);
        if (path)
            unlink (path);
    }
}

static void test_pus_and_hostname_fallback (void)
{
    const char *path = write_topology ("", "");
    rp_error_t error = { { 0 } };
    char host[256] = "";
    struct rp_rset *r;

    r = path ? rp_rset_from_hwloc (0, NULL, path, &error) : NULL;
    ok (r != NULL, "topology without Core objects loads");
    is (ids (rp_rset_cores (r, 0)), "0-1", "its PUs are the cores");
    gethostname (host, sizeof (host) - 1);
    is (rp_rset_hostname (r, 0), host,
        "no HostName info: gethostname() is the host name");
    rp_rset_destroy (r);
    if (path)
        unlink (path);

    path = write_topology ("<info name=\"HostName\" value=\"fromxml\"/>", "");
    r = path ? rp_rset_from_hwloc (0, NULL, path, &error) : NULL;
    is (r ? rp_rset_hostname (r, 0) : NULL, "fromxml",
        "HostName info is the host name");
    rp_rset_destroy (r);
    r = path ? rp_rset_from_hwloc (0, "arg", path, &error) : NULL;
    is (r ? rp_rset_hostname (r, 0) : NULL, "arg",
        "the host name argument wins over HostName");
    rp_rset_destroy (r);
    if (path)
        unlink (path);
}

static void test_local (void)
{
    rp_error_t error = { { 0 } };
    struct rp_rset *r = rp_rset_from_hwloc (3, NULL, NULL, &error);

    ok (r != NULL, "this machine's topology loads");
    if (!r) {
        diag ("%s", error.text);
        return;
    }
    cmp_ok (rp_rset_count (r, "core"), >=, 1, "it has at least one core");
    cmp_ok (rp_rset_count (r, "node"), ==, 1, "it is one target");
    ok (rp_rset_hostname (r, 3) && *rp_rset_hostname (r, 3),
        "it has a host name (%s)", rp_rset_hostname (r, 3));
    diag ("this machine: cores %s", ids (rp_rset_cores (r, 3)));
    diag ("this machine: gpus '%s'", ids (rp_rset_gpus (r, 3)));
    rp_rset_destroy (r);
}

/* A file whose content is given, for the failure table. */
static const char *write_file (const char *content)
{
    static char path[256];
    const char *tmp = getenv ("TMPDIR");
    FILE *f;
    int fd;

    snprintf (path, sizeof (path), "%s/rhwloc-XXXXXX", tmp ? tmp : "/tmp");
    if ((fd = mkstemp (path)) < 0 || !(f = fdopen (fd, "w")))
        return NULL;
    fputs (content, f);
    if (fclose (f) != 0)
        return NULL;
    return path;
}

static const struct {
    const char *what;
    const char *content; /* NULL: path is the file name itself */
    const char *path;
    int errnum;
    const char *reason;
} failures[] = {
    { "missing file", NULL, "/nonexistent/topology.xml", ENOENT,
      "No such file or directory" },
    { "directory", NULL, "/", EISDIR, "Is a directory" },
    { "character device", NULL, "/dev/zero", EINVAL, "not a regular file" },
    { "empty file", "", NULL, EINVAL, "not a valid hwloc XML topology" },
    { "not XML", "hello world\n", NULL, EINVAL,
      "not a valid hwloc XML topology" },
    { "XML but not a topology", "<?xml version=\"1.0\"?><foo/>\n", NULL, EINVAL,
      "not a valid hwloc XML topology" },
    { "truncated topology",
      "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n"
      "<object type=\"Machine\" os_index=\"0\"",
      NULL, EINVAL, "not a valid hwloc XML topology" },
};

static void test_failures (void)
{
    for (size_t i = 0; i < sizeof (failures) / sizeof (failures[0]); i++) {
        const char *path = failures[i].path;
        rp_error_t error = { { 0 } };
        struct rp_rset *r;
        char want[512];

        if (failures[i].content && !(path = write_file (failures[i].content)))
            BAIL_OUT ("cannot write a temporary file: %s", strerror (errno));
        snprintf (want, sizeof (want), "R: hwloc: %s: cannot load topology: %s",
                  path, failures[i].reason);
        errno = 0;
        r = rp_rset_from_hwloc (0, NULL, path, &error);
        ok (r == NULL && errno == failures[i].errnum, "%s fails with %s",
            failures[i].what, strerror (failures[i].errnum));
        is (error.text, want, "%s: message", failures[i].what);
        rp_rset_destroy (r);
        if (failures[i].content)
            unlink (path);
    }
}

/* A FIFO is refused without waiting for a writer; a file over the limit
 * is refused before it is read (a sparse file: no disk is used). */
static void test_special_files (void)
{
    char dir[] = "/tmp/rhwloc-XXXXXX";
    char fifo[64], big[64], want[256];
    rp_error_t error = { { 0 } };
    struct rp_rset *r;
    int fd;

    if (!mkdtemp (dir))
        BAIL_OUT ("mkdtemp: %s", strerror (errno));
    snprintf (fifo, sizeof (fifo), "%s/fifo.xml", dir);
    snprintf (big, sizeof (big), "%s/big.xml", dir);
    if (mkfifo (fifo, 0600) < 0
        || (fd = open (big, O_WRONLY | O_CREAT, 0600)) < 0
        || ftruncate (fd, RHWLOC_XML_MAX_BYTES + 1) < 0 || close (fd) < 0)
        BAIL_OUT ("cannot make test files: %s", strerror (errno));

    errno = 0;
    r = rp_rset_from_hwloc (0, NULL, fifo, &error);
    ok (r == NULL && errno == EINVAL, "a FIFO fails with EINVAL, not waiting");
    snprintf (want, sizeof (want),
              "R: hwloc: %s: cannot load topology: not a regular file", fifo);
    is (error.text, want, "a FIFO: message");

    errno = 0;
    r = rp_rset_from_hwloc (0, NULL, big, &error);
    ok (r == NULL && errno == EFBIG, "a file over the limit fails with EFBIG");
    snprintf (want, sizeof (want),
              "R: hwloc: %s: cannot load topology: larger than 64 MiB", big);
    is (error.text, want, "a file over the limit: message");

    unlink (fifo);
    unlink (big);
    rmdir (dir);
}

/* hwloc 2.9 segfaults on this file; the library reads XML in a child
 * process so the caller gets an error instead. */
static void test_hwloc_crash_is_an_error (void)
{
    static char path[4096];
    snprintf (path, sizeof (path),
              "%s/t/data/hwloc-bad/no-complete-nodeset.xml", srcdir ());
    rp_error_t error = { { 0 } };
    struct rp_rset *r;
    char want[512];

    errno = 0;
    r = rp_rset_from_hwloc (0, NULL, path, &error);
    ok (r == NULL && errno == EINVAL,
        "XML that crashes hwloc fails with EINVAL");
    snprintf (want, sizeof (want),
              "R: hwloc: %s: cannot load topology: not a valid hwloc XML "
              "topology (hwloc died reading it: Segmentation fault)",
              path);
    is (error.text, want, "XML that crashes hwloc: message");
    rp_rset_destroy (r);
}

static void test_bad_hostname (void)
{
    const char *path = topology_path ("coral-lassen.xml");
    rp_error_t error = { { 0 } };
    struct rp_rset *r;
    char want[512];

    errno = 0;
    r = rp_rset_from_hwloc (0, "", path, &error);
    ok (r == NULL && errno == EINVAL, "empty host name fails with EINVAL");
    snprintf (want, sizeof (want), "R: hwloc: %s: host name is empty", path);
    is (error.text, want, "empty host name: message");
    rp_rset_destroy (r);

    path = write_topology ("<info name=\"HostName\" value=\"n[1-2]\"/>", "");
    errno = 0;
    r = path ? rp_rset_from_hwloc (0, NULL, path, &error) : NULL;
    ok (r == NULL && errno == EINVAL,
        "HostName that is not one host fails with EINVAL");
    snprintf (want, sizeof (want),
              "R: hwloc: %s: host name \"n[1-2]\" is not a single host",
              path ? path : "");
    is (error.text, want, "HostName that is not one host: message");
    rp_rset_destroy (r);
    if (path)
        unlink (path);

    errno = 0;
    r = rp_rset_from_hwloc (0, "", NULL, &error);
    ok (r == NULL && errno == EINVAL, "this machine, empty host name fails");
    is (error.text, "R: hwloc: host name is empty",
        "this machine, empty host name: message");
    rp_rset_destroy (r);
}

static void test_bad_rank (void)
{
    rp_error_t error = { { 0 } };
    struct rp_rset *r;
    char want[512];

    errno = 0;
    r = rp_rset_from_hwloc (RP_IDSET_INVALID_ID, NULL,
                            topology_path ("coral-lassen.xml"), &error);
    ok (r == NULL && errno == EINVAL, "rank 2^32-1 fails with EINVAL");
    snprintf (want, sizeof (want),
              "R: hwloc: %s: rank 4294967295 is out of "
              "range",
              topology_path ("coral-lassen.xml"));
    is (error.text, want, "rank 2^32-1: message");
    rp_rset_destroy (r);
}

int main (void)
{
    plan (NO_PLAN);
    test_real_topologies ();
    test_rank_and_hostname ();
    test_gpu_rules ();
    test_pus_and_hostname_fallback ();
    test_local ();
    test_failures ();
    test_special_files ();
    test_hwloc_crash_is_an_error ();
    test_bad_hostname ();
    test_bad_rank ();
    return done_testing ();
}
