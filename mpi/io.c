#include <pthread.h>
#include "io.h"

/* held says a thread holds the exclusion; mu guards it only within one call
 * here, so a hold may outlive any lock of mu (and needs no initialiser to run). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static int held;

/* depth counts this thread's holds: a libpnetcdf call that the Go side makes
 * under the exclusion may land in libcouplet's C wrapper of it, which takes it
 * again. */
static __thread int depth;

void couplet_io_enter(void) {
	if (depth++ > 0)
		return;
	pthread_mutex_lock(&mu);
	while (held)
		pthread_cond_wait(&freed, &mu);
	held = 1;
	pthread_mutex_unlock(&mu);
}

void couplet_io_leave(void) {
	if (--depth > 0)
		return;
	pthread_mutex_lock(&mu);
	held = 0;
	pthread_cond_signal(&freed);
	pthread_mutex_unlock(&mu);
}

int couplet_io_try(void) {
	if (depth > 0) {
		depth++;
		return 1;
	}
	pthread_mutex_lock(&mu);
	int ok = !held;
	if (ok)
		held = 1;
	pthread_mutex_unlock(&mu);
	if (ok)
		depth = 1;
	return ok;
}
