! reader: the Fortran twin of reader.c without its halo read. An ordinary
! PnetCDF program (use mpi, use pnetcdf): each rank of MPI_COMM_WORLD reads a
! block of columns of both variables, the ranks sum them with MPI_Allreduce,
! and rank 0 prints the same position-weighted sums as reader.c. It calls
! nothing of couplet's.
program reader
  use mpi
  use pnetcdf
  implicit none
  integer :: ierr, rank, nprocs, i

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, command_argument_count()
    call read_file(i)
  end do
  call MPI_Finalize(ierr)

contains

  subroutine check(err, line)
    integer, intent(in) :: err, line
    integer :: ierr2
    if (err /= NF90_NOERR) then
      write (0, '(a,i0,a,a)') 'FAIL reader.f90:', line, ': ', trim(nf90mpi_strerror(err))
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
    end if
  end subroutine

  subroutine read_file(arg)
    integer, intent(in) :: arg
    character(len=1024) :: path
    integer :: ncid, tv, pv, dimids(2), q, r, x, y, ierr2
    integer(kind=MPI_OFFSET_KIND) :: start(2), count(2), nx, ny
    integer(kind=8) :: sums(2), all(2), w
    integer, allocatable :: t(:, :)
    double precision, allocatable :: p(:, :)

    call get_command_argument(arg, path)
    call check(nf90mpi_open(MPI_COMM_WORLD, trim(path), NF90_NOWRITE, MPI_INFO_NULL, ncid), __LINE__)
    call check(nf90mpi_inq_varid(ncid, 't', tv), __LINE__)
    call check(nf90mpi_inq_varid(ncid, 'p', pv), __LINE__)
    call check(nf90mpi_inquire_variable(ncid, tv, dimids=dimids), __LINE__)
    call check(nf90mpi_inquire_dimension(ncid, dimids(1), len=nx), __LINE__)
    call check(nf90mpi_inquire_dimension(ncid, dimids(2), len=ny), __LINE__)

    q = int(nx) / nprocs
    r = mod(int(nx), nprocs)
    start = (/int(rank * q + min(rank, r) + 1, MPI_OFFSET_KIND), 1_MPI_OFFSET_KIND/)
    count = (/int(q, MPI_OFFSET_KIND), ny/)
    if (rank < r) count(1) = count(1) + 1
    allocate (t(max(1_MPI_OFFSET_KIND, count(1)), ny), p(max(1_MPI_OFFSET_KIND, count(1)), ny))
    call check(nf90mpi_get_var_all(ncid, tv, t, start, count), __LINE__)
    call check(nf90mpi_get_var_all(ncid, pv, p, start, count), __LINE__)
    call check(nf90mpi_close(ncid), __LINE__)

    sums = 0
    do y = 1, int(ny)
      do x = 1, int(count(1))
        w = int(y - 1, 8) * nx + (start(1) - 1) + x
        sums(1) = sums(1) + w * t(x, y)
        sums(2) = sums(2) + w * nint(p(x, y) * 128d0, 8)
      end do
    end do
    call MPI_Allreduce(sums, all, 2, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr2)
    if (rank == 0) print '(a,a,a,i0,a,i0)', 'sums ', trim(basename(trim(path))), ': t=', all(1), ' p128=', all(2)
    deallocate (t, p)
  end subroutine

  function basename(path) result(b)
    character(len=*), intent(in) :: path
    character(len=len(path)) :: b
    b = path(index(path, '/', back=.true.) + 1:)
  end function
end program
