/* The MPI-IO exclusion (io.go): held around every call that may enter MPI-IO,
 * tried by a thread that enters MPI only to progress it. Holds nest on one
 * thread, and a hold is given back on the thread that took it. */
void couplet_io_enter(void);
void couplet_io_leave(void);
int couplet_io_try(void);
