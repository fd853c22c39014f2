#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "watcher.h"

/* The thread looks only while the watch is neither paused (a caller is
 * progressing MPI itself) nor fired (the owner has not taken the last
 * signal yet), backing off from min_ns to max_ns while nothing waits. mu
 * guards the flags; cv wakes the thread when they change in a way it must
 * see at once: only while it is parked (paused or fired, waiting without a
 * deadline), and when it must stop. A pause, or a resume of a pause shorter
 * than the thread's sleep, is seen when the sleep ends: waking the thread
 * at every pause and resume, twice per wait of every application call, made
 * it the largest source of context switches couplet adds to an exchange of
 * ranks that outnumber cores (case 1 of couplet bench). */
struct couplet_watch {
	MPI_Comm comm;
	int tag, efd;
	long long min_ns, max_ns;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int paused, fired, stop;
	int parked; /* the thread waits on cv with no deadline */
	unsigned long long tries, looks; /* tries of the MPI-IO exclusion, and probes */
	unsigned long long wakes;        /* waits ended before their deadline, if any */
	pthread_t th;
};

static void deadline_after(struct timespec *t, long long ns) {
	clock_gettime(CLOCK_MONOTONIC, t);
	ns += t->tv_nsec;
	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

/* probe is MPI_Iprobe looking twice, as h_poll does (ob1 matches before it
 * progresses, so the first look after a sleep only pulls a message in). It
 * leaves Open MPI's yield-when-idle switch alone: that switch is process-wide,
 * and a thread not serialised with the others must not save and restore it. */
static int probe(couplet_watch *w, int *flag) {
	MPI_Status st;
	int rc = PMPI_Iprobe(MPI_ANY_SOURCE, w->tag, w->comm, flag, &st);
	if (rc == MPI_SUCCESS && !*flag)
		rc = PMPI_Iprobe(MPI_ANY_SOURCE, w->tag, w->comm, flag, &st);
	return rc;
}

static void *watch_main(void *arg) {
	couplet_watch *w = arg;
	long long idle = w->min_ns;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		if (w->paused || w->fired) {
			idle = w->min_ns; /* what ended the pause may have left work behind */
			w->parked = 1;
			pthread_cond_wait(&w->cv, &w->mu);
			w->parked = 0;
			w->wakes++;
			continue;
		}
		struct timespec t;
		deadline_after(&t, idle);
		if (pthread_cond_timedwait(&w->cv, &w->mu, &t) != ETIMEDOUT) {
			w->wakes++;
			continue; /* the flags changed: look at them again */
		}
		if (w->paused || w->fired || w->stop)
			continue;
		pthread_mutex_unlock(&w->mu);
		int flag = 0, looked = 0;
		/* Never inside another thread's MPI-IO call (io.h). */
		if (couplet_io_try()) {
			looked = 1;
			if (probe(w, &flag) != MPI_SUCCESS)
				flag = 1; /* let the owner see the error */
			couplet_io_leave();
		}
		pthread_mutex_lock(&w->mu);
		w->tries++;
		w->looks += looked;
		if (flag && !w->paused && !w->stop) {
			uint64_t one = 1;
			w->fired = 1;
			if (write(w->efd, &one, sizeof one) < 0) {
				/* A full counter still reads as readable: nothing is lost. */
			}
			idle = w->min_ns;
		} else if (!flag) {
			idle = idle * 2 < w->max_ns ? idle * 2 : w->max_ns;
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

couplet_watch *couplet_watch_start(MPI_Comm comm, int tag, long long min_ns, long long max_ns, int *efd, int *err) {
	couplet_watch *w = calloc(1, sizeof *w);
	if (!w) {
		*err = ENOMEM;
		return NULL;
	}
	w->comm = comm;
	w->tag = tag;
	w->min_ns = min_ns;
	w->max_ns = max_ns;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		*err = errno;
		free(w);
		return NULL;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->mu, NULL);
	/* The thread starts with every signal blocked, so that signals for the
	 * process go to the Go runtime's threads, not to one it does not know. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&w->th, NULL, watch_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		*err = rc;
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		close(w->efd);
		free(w);
		return NULL;
	}
	*efd = w->efd;
	return w;
}

/* watch_set sets a flag and wakes the thread when it is parked, or always
 * (wake). It signals after unlocking, so that the woken thread does not
 * block on the mutex at once. */
static void watch_set(couplet_watch *w, int *field, int v, int wake) {
	pthread_mutex_lock(&w->mu);
	*field = v;
	wake = wake || w->parked;
	pthread_mutex_unlock(&w->mu);
	if (wake)
		pthread_cond_signal(&w->cv);
}

void couplet_watch_pause(couplet_watch *w, int paused) { watch_set(w, &w->paused, paused, 0); }

void couplet_watch_rearm(couplet_watch *w) { watch_set(w, &w->fired, 0, 0); }

void couplet_watch_counts(couplet_watch *w, unsigned long long *tries, unsigned long long *looks, unsigned long long *wakes) {
	pthread_mutex_lock(&w->mu);
	*tries = w->tries;
	*looks = w->looks;
	*wakes = w->wakes;
	pthread_mutex_unlock(&w->mu);
}

/* couplet_watch_stop joins the thread and frees the watch; the eventfd
 * stays open for its owner to close. */
void couplet_watch_stop(couplet_watch *w) {
	watch_set(w, &w->stop, 1, 1);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
