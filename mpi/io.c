#include <errno.h>
#include <semaphore.h>
#include "io.h"

static sem_t io_sem;

/* io_depth counts this thread's holds: a libpnetcdf call that the Go side makes
 * under the exclusion may land in libcouplet's C wrapper of it, which takes it again. */
static __thread int io_depth;

__attribute__((constructor)) static void io_init(void) { sem_init(&io_sem, 0, 1); }

void couplet_io_enter(void) {
	if (io_depth++ > 0)
		return;
	while (sem_wait(&io_sem) != 0 && errno == EINTR) {
	}
}

void couplet_io_leave(void) {
	if (--io_depth == 0)
		sem_post(&io_sem);
}

int couplet_io_try(void) {
	if (io_depth == 0 && sem_trywait(&io_sem) != 0)
		return 0;
	io_depth++;
	return 1;
}
