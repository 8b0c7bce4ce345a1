/*
 * slowsync.c -- LD_PRELOAD shim for the binlogkit stall lab.
 *
 * Wraps fsync() and fdatasync().  When the descriptor is a file whose base
 * name matches BINLOGKIT_SLOWSYNC_PATTERN (fnmatch, default "*-bin.[0-9]*"),
 * the call sleeps size_in_MiB * BINLOGKIT_SLOWSYNC_SEC_PER_MB seconds before
 * doing the real sync -- the way ext4 delayed allocation made the sync at
 * binlog rotation take time in proportion to the unwritten file -- and
 * appends one ground-truth line per call to BINLOGKIT_SLOWSYNC_LOG:
 *
 *     <call>\t<start_us>\t<end_us>\t<delay_us>\t<size>\t<path>\n
 *
 * (epoch microseconds, CLOCK_REALTIME, measured around the whole wrapped
 * call).  Files smaller than BINLOGKIT_SLOWSYNC_MIN_BYTES are synced without
 * delay.  When BINLOGKIT_SLOWSYNC_ARMED names a path, delays are injected
 * only while that path exists (the lab disarms before shutdown, whose final
 * sync is not a rotation).  Every matching call is logged, delayed or not.
 *
 * Build: gcc -shared -fPIC -O2 -o slowsync.so slowsync.c -ldl
 * Part of binlogkit (Apache-2.0).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int (*sync_fn)(int);

static sync_fn real_fsync;
static sync_fn real_fdatasync;
static const char *pattern = "*-bin.[0-9]*";
static const char *log_path;
static const char *armed_path;
static double sec_per_mb;
static long long min_bytes;

__attribute__((constructor)) static void slowsync_init(void)
{
    const char *v;
    real_fsync = (sync_fn)dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (sync_fn)dlsym(RTLD_NEXT, "fdatasync");
    if ((v = getenv("BINLOGKIT_SLOWSYNC_PATTERN")) && *v)
        pattern = v;
    if ((v = getenv("BINLOGKIT_SLOWSYNC_SEC_PER_MB")))
        sec_per_mb = strtod(v, NULL);
    if ((v = getenv("BINLOGKIT_SLOWSYNC_MIN_BYTES")))
        min_bytes = strtoll(v, NULL, 10);
    if ((v = getenv("BINLOGKIT_SLOWSYNC_LOG")) && *v)
        log_path = v;
    if ((v = getenv("BINLOGKIT_SLOWSYNC_ARMED")) && *v)
        armed_path = v;
}

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* The path behind fd if its base name matches the pattern, else 0. */
static int binlog_path(int fd, char *buf, size_t len)
{
    char link[64];
    ssize_t n;
    const char *base;

    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, buf, len - 1);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    return fnmatch(pattern, base, 0) == 0;
}

static void sleep_us(long long us)
{
    struct timespec req = {us / 1000000LL, (us % 1000000LL) * 1000L};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &req) == EINTR)
        ;
}

static void record(const char *call, long long start, long long end,
                   long long delay, long long size, const char *path)
{
    char line[4200];
    int fd, n;

    if (!log_path)
        return;
    n = snprintf(line, sizeof line, "%s\t%lld\t%lld\t%lld\t%lld\t%s\n",
                 call, start, end, delay, size, path);
    if (n <= 0 || n >= (int)sizeof line)
        return;
    fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n) {
        /* ground truth is best effort; the sync result is what matters */
    }
    close(fd);
}

static int slow_sync(const char *call, sync_fn real, int fd)
{
    char path[4096];
    struct stat st;
    long long start, delay = 0, size = 0;
    int rc, saved;

    if (!real)
        return errno = ENOSYS, -1;
    if (!binlog_path(fd, path, sizeof path))
        return real(fd);
    start = now_us();
    if (fstat(fd, &st) == 0)
        size = (long long)st.st_size;
    if (sec_per_mb > 0 && size >= min_bytes
        && (!armed_path || access(armed_path, F_OK) == 0))
        delay = (long long)(sec_per_mb * (double)size / 1048576.0 * 1e6);
    if (delay > 0)
        sleep_us(delay);
    rc = real(fd);
    saved = errno;
    record(call, start, now_us(), delay, size, path);
    errno = saved;
    return rc;
}

int fsync(int fd)
{
    return slow_sync("fsync", real_fsync, fd);
}

int fdatasync(int fd)
{
    return slow_sync("fdatasync", real_fdatasync, fd);
}
