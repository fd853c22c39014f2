/* A watcher (watcher.go) is a POSIX thread that looks for waiting messages of one
 * tag, outside the Go scheduler, and signals an eventfd when one waits. */
#include <mpi.h>

typedef struct couplet_watch couplet_watch;

couplet_watch *couplet_watch_start(MPI_Comm comm, int tag, long long min_ns, long long max_ns, int *efd, int *err);
void couplet_watch_pause(couplet_watch *w, int paused);
void couplet_watch_rearm(couplet_watch *w);
void couplet_watch_counts(couplet_watch *w, unsigned long long *tries, unsigned long long *looks, unsigned long long *wakes);
void couplet_watch_stop(couplet_watch *w);
