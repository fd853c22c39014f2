// Package letkf is a SCALE-LETKF-like cycling workflow (the pattern of
// dtf-bench): an ensemble weather model and a data assimilation component
// exchange a history file and an analysis file every cycle through coupled
// PnetCDF I/O, which is what replay (record the schedule of an epoch, skip
// the matching in later cycles) is for.
//
// Two programs make the workflow:
//
//	sim  the ensemble model. -member members each run on their own
//	     sub-communicator (a split of dtf.Comm) over a 2-D process grid, with
//	     an -imax x -jmax x -kmax block per rank. Every cycle each member
//	     writes DIR/mMMM/cCCCC.hist.nc (its forecast) and
//	     DIR/mMMM/cCCCC.anal.nc (its first guess), -nvars 3-D float variables
//	     each, with iput_vara, bput_vara (buffer_attach/detach), put_var1 of
//	     the scalar "time" and wait_all. It then opens the analysis file again
//	     read-only and reads the updated analysis, its state for the next cycle.
//	da   the assimilation. Its ranks form one sub-group per member; each rank
//	     reads a slab of rows of its member's domain from both files with
//	     iget_vara + wait_all, gathers the ensemble's forecasts for its slab
//	     from the other groups, relaxes the analysis toward the ensemble mean,
//	     and writes it back by reopening the analysis file with NC_WRITE. The
//	     analysis file therefore has two sessions per cycle (num_sessions = 2)
//	     and the roles flip: da writes session 2 and sim reads it.
//
// Every value is a deterministic function of member, variable, cycle and grid
// point (this file's Initial, Perturbation, Forecast and Relax), so every rank
// checks what it received against what its sender must have computed: da
// checks the forecast and the first guess, and sim checks the analysis against
// a mirror of the whole ensemble on its own block. Rank 0 of each component
// prints one line per cycle with a checksum of all verified data, so runs with
// replay on and off can be compared; sim's line also gives the time spent in
// coupled I/O calls, and with -mem both print the largest live heap and the
// largest resident set (VmRSS) of any rank, for long runs (TestSoak200).
//
// Launch with one mpirun (the component comes from MPI_APPNUM):
//
//	mpirun -np 4 sim -cfg letkf.ini -member 2 -dir run : -np 2 da -cfg letkf.ini -member 2 -dir run
//
// letkf.ini couples m%/c%.hist.nc and m%/c%.anal.nc with replay_io = 1;
// COUPLET_REPLAY_IO=0 turns replay off without editing it, and
// COUPLET_STATS=path moves the JSON-lines statistics that show replay hit or
// miss per rank, file, session and epoch.
//
// The test runs a small ensemble with replay on and off; BenchmarkReplay runs
// a larger one both ways and reports per-cycle times from the statistics:
//
//	go test -run NONE -bench Replay -benchtime 1x ./examples/letkf/
package letkf
