! writer: the Fortran twin of writer.c, an ordinary PnetCDF program (use mpi,
! use pnetcdf) that splits the rows of the grid over MPI_COMM_WORLD and
! writes every file named on the command line, byte-identical to writer.c's.
! It calls nothing of couplet's.
program writer
  use mpi
  use pnetcdf
  implicit none
  integer, parameter :: ny = 24, nx = 16
  integer :: ierr, rank, nprocs, i

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, command_argument_count()
    call write_file(i)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'writer: ', nprocs, ' ranks wrote ', command_argument_count(), ' files'
  call MPI_Finalize(ierr)

contains

  subroutine check(err, line)
    integer, intent(in) :: err, line
    integer :: ierr2
    if (err /= NF90_NOERR) then
      write (0, '(a,i0,a,a)') 'FAIL writer.f90:', line, ': ', trim(nf90mpi_strerror(err))
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
    end if
  end subroutine

  subroutine write_file(arg)
    integer, intent(in) :: arg
    character(len=1024) :: path
    integer :: ncid, ydim, xdim, tv, pv, q, r, x, y
    integer(kind=MPI_OFFSET_KIND) :: start(2), count(2)
    integer, allocatable :: t(:, :)
    double precision, allocatable :: p(:, :)

    call get_command_argument(arg, path)
    call check(nf90mpi_create(MPI_COMM_WORLD, trim(path), ior(NF90_CLOBBER, NF90_64BIT_DATA), MPI_INFO_NULL, ncid), __LINE__)
    call check(nf90mpi_put_att(ncid, NF90_GLOBAL, 'title', 'plain writer'), __LINE__)
    call check(nf90mpi_def_dim(ncid, 'y', int(ny, MPI_OFFSET_KIND), ydim), __LINE__)
    call check(nf90mpi_def_dim(ncid, 'x', int(nx, MPI_OFFSET_KIND), xdim), __LINE__)
    ! Fortran lists dimensions fastest first: (x, y) is C's [y][x].
    call check(nf90mpi_def_var(ncid, 't', NF90_INT, (/xdim, ydim/), tv), __LINE__)
    call check(nf90mpi_def_var(ncid, 'p', NF90_DOUBLE, (/xdim, ydim/), pv), __LINE__)
    call check(nf90mpi_put_att(ncid, pv, 'units', 'hPa'), __LINE__)
    call check(nf90mpi_enddef(ncid), __LINE__)

    q = ny / nprocs
    r = mod(ny, nprocs)
    start = (/1_MPI_OFFSET_KIND, int(rank * q + min(rank, r) + 1, MPI_OFFSET_KIND)/)
    count = (/int(nx, MPI_OFFSET_KIND), int(q, MPI_OFFSET_KIND)/)
    if (rank < r) count(2) = count(2) + 1
    allocate (t(nx, max(1_MPI_OFFSET_KIND, count(2))), p(nx, max(1_MPI_OFFSET_KIND, count(2))))
    do y = 1, int(count(2))
      do x = 1, nx
        t(x, y) = 1000 * (int(start(2)) + y - 2) + (x - 1)
        p(x, y) = dble(int(start(2)) + y - 2) + dble(x - 1) / 128d0
      end do
    end do
    call check(nf90mpi_put_var_all(ncid, tv, t, start, count), __LINE__)
    call check(nf90mpi_put_var_all(ncid, pv, p, start, count), __LINE__)
    call check(nf90mpi_close(ncid), __LINE__)
    deallocate (t, p)
  end subroutine
end program
