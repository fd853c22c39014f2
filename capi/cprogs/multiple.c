/* multiple: DTF's dtf_transfer_multiple / dtf_complete_multiple. The writer
 * writes "temp" (NY x NX ints, blocks of rows) and ends its epoch with one
 * dtf_transfer_multiple; the reader makes three transfers against it, each
 * with other hyperslabs (columns by iget, rows by a blocking get, a strided
 * iget), and ends it with dtf_complete_multiple. A second, ordinary epoch
 * with new values follows, so both sides must agree on the epoch count.
 *
 *   multiple writer|reader PATH ok
 *   multiple writer|reader PATH nocomplete DEAD      the reader never completes
 *   multiple writer|reader PATH writerdies DEAD KILL the writer dies after round 1
 *
 * The fault modes meet through two FIFOs the test made: DEAD, whose write end
 * the writer's rank 0 holds, so the reader's read of it ends when that process
 * is gone; and KILL, on which the reader tells the writer to die. A rank that
 * sees a dtf call fail prints "SURVIVOR <role> rank <r> after <s>s" and exits
 * without finalising (its peer is gone or stuck). */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static const char *path;
static int rank, nprocs, dead_fd = -1;

/* killer waits for the reader's word on the KILL FIFO, then dies the hard way. */
static void *killer(void *kill_fifo) {
	int fd = open(kill_fifo, O_RDONLY);
	char c;
	if (fd >= 0 && read(fd, &c, 1) == 1) {
		printf("KILLED writer rank %d\n", rank);
		fflush(stdout);
		raise(SIGKILL);
	}
	fprintf(stderr, "FAIL rank %d: reading %s\n", world_rank, (char *)kill_fifo);
	return NULL;
}

/* wait_writer_gone blocks until the writer's rank 0 process has ended. */
static void wait_writer_gone(void) {
	char c;
	while (read(dead_fd, &c, 1) > 0)
		;
}

static void survivor(const char *role, double t0) {
	printf("SURVIVOR %s rank %d after %.2fs\n", role, rank, MPI_Wtime() - t0);
	fflush(stdout);
	fflush(stderr);
	_exit(0);
}

static int expect_slab(const int *buf, MPI_Offset y0, MPI_Offset x0, MPI_Offset ny, MPI_Offset nx, MPI_Offset sy, MPI_Offset sx, int add) {
	int n = 0;
	for (MPI_Offset i = 0; i < ny; i++)
		for (MPI_Offset j = 0; j < nx; j++, n++) {
			int y = y0 + i * sy, x = x0 + j * sx;
			EXPECT(buf[n] == tval(y, x) + add, "temp[%d][%d] = %d, want %d", y, x, buf[n], tval(y, x) + add);
		}
	return n;
}

static void writer(const char *mode) {
	int ncid, dims[2], tv;
	MPI_Comm comm = component_comm();
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nprocs);
	CHECK(ncmpi_create(comm, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_def_dim(ncid, "y", NY, &dims[0]));
	CHECK(ncmpi_def_dim(ncid, "x", NX, &dims[1]));
	CHECK(ncmpi_def_var(ncid, "temp", NC_INT, 2, dims, &tv));
	CHECK(ncmpi_enddef(ncid));
	MPI_Offset start[2] = {0, 0}, count[2] = {0, NX};
	block(NY, nprocs, rank, &start[0], &count[0]);
	int *t = malloc(sizeof(int) * count[0] * NX);
	for (int add = 0; add <= 7; add += 7) {
		for (int i = 0; i < count[0]; i++)
			for (int x = 0; x < NX; x++)
				t[i * NX + x] = tval(start[0] + i, x) + add;
		CHECK(ncmpi_put_vara_int_all(ncid, tv, start, count, t));
		if (add == 0) {
			double t0 = MPI_Wtime();
			dtf_transfer_multiple(path, ncid);
			if (strcmp(mode, "nocomplete") == 0)
				survivor("writer", t0);
		} else {
			CHECK(dtf_transfer(NULL, ncid));
		}
	}
	CHECK(ncmpi_close(ncid));
	free(t);
	printf("writer rank %d: served\n", rank);
	exit(finish(comm));
}

static void reader(const char *mode, const char *kill_fifo) {
	int ncid, tv, req, st, n = 0;
	MPI_Comm comm = component_comm();
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nprocs);
	CHECK(ncmpi_open(comm, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_inq_varid(ncid, "temp", &tv));
	int *buf = malloc(sizeof(int) * NY * NX);

	/* Transfer 1: a block of columns, by iget. */
	MPI_Offset start[2] = {0, 0}, count[2] = {NY, 0}, stride[2];
	block(NX, nprocs, rank, &start[1], &count[1]);
	CHECK(ncmpi_iget_vara_int(ncid, tv, start, count, buf, &req));
	CHECK(dtf_transfer(path, ncid));
	n += expect_slab(buf, 0, start[1], NY, count[1], 1, 1, 0);

	/* Every reader rank has had transfer 1 before the writer dies. */
	MPI_Barrier(comm);
	if (strcmp(mode, "writerdies") == 0 && rank == 0) {
		int fd = open(kill_fifo, O_WRONLY);
		if (fd < 0 || write(fd, "k", 1) != 1)
			fprintf(stderr, "FAIL rank %d: writing %s\n", world_rank, kill_fifo);
		close(fd);
		wait_writer_gone();
	}
	MPI_Barrier(comm);
	double t0 = MPI_Wtime();

	/* Transfer 2: a block of rows, columns 1..NX-2, by a blocking get (a
	 * round of its own), then a transfer with nothing pending. */
	start[1] = 1, count[1] = NX - 2;
	block(NY, nprocs, rank, &start[0], &count[0]);
	int err = ncmpi_get_vara_int_all(ncid, tv, start, count, buf);
	if (err != NC_NOERR && strcmp(mode, "writerdies") == 0) {
		fprintf(stderr, "couplet test: get in the multiple epoch: %s\n", ncmpi_strerror(err));
		survivor("reader", t0);
	}
	CHECK(err);
	n += expect_slab(buf, start[0], 1, count[0], NX - 2, 1, 1, 0);
	CHECK(dtf_transfer(path, ncid));

	/* Transfer 3: every other row and every third column from this rank's
	 * offset, by a strided iget. */
	start[0] = rank, start[1] = rank % 3, stride[0] = nprocs, stride[1] = 3;
	count[0] = (NY - start[0] + nprocs - 1) / nprocs, count[1] = (NX - start[1] + 2) / 3;
	CHECK(ncmpi_iget_vars_int(ncid, tv, start, count, stride, buf, &req));
	CHECK(dtf_transfer(path, ncid));
	CHECK(ncmpi_wait_all(ncid, 1, &req, &st)); /* served by the transfer: a no-op */
	CHECK(st);
	n += expect_slab(buf, start[0], start[1], count[0], count[1], nprocs, 3, 0);

	if (strcmp(mode, "nocomplete") == 0) {
		if (rank == 0)
			wait_writer_gone();
		MPI_Barrier(comm);
		printf("reader rank %d: writer gone\n", rank);
		fflush(stdout);
		_exit(0);
	}
	dtf_complete_multiple(path, ncid);

	/* An ordinary epoch after the multiple one: the writer's new values. */
	start[0] = 0, start[1] = 0, count[0] = NY, count[1] = NX;
	CHECK(ncmpi_iget_vara_int(ncid, tv, start, count, buf, &req));
	CHECK(dtf_transfer(path, ncid));
	n += expect_slab(buf, 0, 0, NY, NX, 1, 1, 7);
	CHECK(ncmpi_close(ncid));
	free(buf);
	if (failures == 0)
		printf("reader rank %d: verified %d values in 4 transfers\n", rank, n);
	exit(finish(comm));
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	if (argc < 4 || (strcmp(argv[3], "ok") != 0 && argc < 5) || (strcmp(argv[3], "writerdies") == 0 && argc < 6)) {
		fprintf(stderr, "FAIL rank %d: usage: multiple writer|reader PATH ok|nocomplete DEAD|writerdies DEAD KILL\n", world_rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!HAVE_DTF) {
		fprintf(stderr, "FAIL rank %d: the DTF entry points are missing (run with libcouplet)\n", world_rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	path = argv[2];
	int w = strcmp(argv[1], "writer") == 0;
	if (argc > 4) {
		/* Writer rank 0 and reader rank 0 pair their opens of DEAD before
		 * anything else; each open blocks until the other side's. */
		int r;
		MPI_Comm_rank(MPI_COMM_WORLD, &r);
		MPI_Comm c = component_comm();
		MPI_Comm_rank(c, &r);
		MPI_Comm_free(&c);
		if (r == 0 && (dead_fd = open(argv[4], w ? O_WRONLY : O_RDONLY)) < 0)
			fprintf(stderr, "FAIL rank %d: opening %s\n", world_rank, argv[4]);
		if (w && r == 0 && argc > 5) {
			pthread_t th;
			pthread_create(&th, NULL, killer, argv[5]);
		}
	}
	if (w)
		writer(argv[3]);
	reader(argv[3], argc > 5 ? argv[5] : NULL);
	return 0;
}
