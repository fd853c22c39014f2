package main

/*
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

// sched_yield interposes libc's for this program (Open MPI calls it from an
// idle progress call when ranks outnumber cores), counting the calls.
static atomic_long yields;
int sched_yield(void) {
	atomic_fetch_add(&yields, 1);
	return syscall(SYS_sched_yield);
}
static long yield_count(void) { return atomic_load(&yields); }
*/
import "C"

// yieldCount returns how many times this process called sched_yield.
func yieldCount() int64 { return int64(C.yield_count()) }
