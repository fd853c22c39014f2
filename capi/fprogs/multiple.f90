! multiple: DTF's dtf_transfer_multiple / dtf_complete_multiple from Fortran.
! The writer ("wrt") puts a 2-D real array (blocks of columns j) and ends its
! epoch with one dtf_transfer_multiple; the reader ("rdr") makes two
! dtf_transfers against it, the first for the lower half of i, the second for
! the upper half, each by nfmpi_iget_vara_real, and ends the writer's epoch
! with dtf_complete_multiple. DTF's conventions: arguments by reference,
! strings ended with CHAR(0), the entry points declared external.
program multiple
  implicit none
  include 'mpif.h'
  include 'pnetcdf.inc'
  external dtf_init, dtf_transfer, dtf_transfer_multiple, dtf_complete_multiple, dtf_finalize, couplet_comm
  integer, parameter :: nx = 8, ny = 6
  integer :: ierr, comm, rank, nprocs, ncid, varid, dimids(2), req(1), st(1), i, j, h, nbad
  integer(kind=MPI_OFFSET_KIND) :: start(2), count(2), len
  real :: p(nx, ny), q(nx / 2, ny)
  character(len=16) :: role
  character(len=256) :: dir, cfg, path
  call MPI_Init(ierr)
  call getarg(1, role)
  call getarg(2, dir)
  call getarg(3, cfg)
  path = trim(dir)//'/pressure_wave_test_multiple.nc'
  call dtf_init(trim(cfg)//CHAR(0), trim(role)//CHAR(0), ierr)
  if (ierr /= 0) call fail('dtf_init', ierr)
  call couplet_comm(comm, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  if (role == 'wrt') then
    ierr = nfmpi_create(comm, trim(path), NF_CLOBBER, MPI_INFO_NULL, ncid)
    if (ierr /= NF_NOERR) call fail('create', ierr)
    len = nx
    ierr = nfmpi_def_dim(ncid, 'x', len, dimids(1))
    len = ny
    ierr = nfmpi_def_dim(ncid, 'y', len, dimids(2))
    ierr = nfmpi_def_var(ncid, 'pressure', NF_REAL, 2, dimids, varid)
    ierr = nfmpi_enddef(ncid)
    count = (/ int(nx, MPI_OFFSET_KIND), int(ny / nprocs, MPI_OFFSET_KIND) /)
    start = (/ 1_MPI_OFFSET_KIND, int(rank * (ny / nprocs) + 1, MPI_OFFSET_KIND) /)
    do j = 1, int(count(2))
      do i = 1, nx
        p(i, j) = value(i, int(start(2)) + j - 1)
      end do
    end do
    ierr = nfmpi_put_vara_real_all(ncid, varid, start, count, p)
    if (ierr /= NF_NOERR) call fail('put_vara_real_all', ierr)
    call dtf_transfer_multiple(trim(path)//CHAR(0), ncid)
    print '(A,I0,A)', 'DTF rank ', rank, ' served the multiple transfer'
  else
    ierr = nfmpi_open(comm, trim(path), NF_NOWRITE, MPI_INFO_NULL, ncid)
    if (ierr /= NF_NOERR) call fail('open', ierr)
    ierr = nfmpi_inq_varid(ncid, 'pressure', varid)
    p = -1.0
    nbad = 0
    do h = 0, 1
      count = (/ int(nx / 2, MPI_OFFSET_KIND), int(ny, MPI_OFFSET_KIND) /)
      start = (/ int(h * (nx / 2) + 1, MPI_OFFSET_KIND), 1_MPI_OFFSET_KIND /)
      ierr = nfmpi_iget_vara_real(ncid, varid, start, count, q, req(1))
      if (ierr /= NF_NOERR) call fail('iget_vara_real', ierr)
      call dtf_transfer(trim(path)//CHAR(0), ncid, ierr)
      if (ierr /= 0) call fail('dtf_transfer', ierr)
      ierr = nfmpi_wait_all(ncid, 1, req, st)
      if (ierr /= NF_NOERR) call fail('wait_all', ierr)
      p(h * (nx / 2) + 1:(h + 1) * (nx / 2), :) = q
    end do
    call dtf_complete_multiple(trim(path)//CHAR(0), ncid)
    do j = 1, ny
      do i = 1, nx
        if (p(i, j) /= value(i, j)) nbad = nbad + 1
      end do
    end do
    if (nbad == 0) then
      print '(A,I0,A,I0,A)', 'DTF rank ', rank, ' verified ', nx * ny, ' values in 2 transfers'
    else
      print '(A,I0,A,I0,A)', 'DTF rank ', rank, ' FAIL ', nbad, ' wrong values'
    end if
  end if
  ierr = nfmpi_close(ncid)
  if (ierr /= NF_NOERR) call fail('close', ierr)
  call dtf_finalize(ierr)
  if (ierr /= 0) call fail('dtf_finalize', ierr)
  call MPI_Finalize(ierr)
contains
  real function value(i, j)
    integer, intent(in) :: i, j
    value = real(j * 100 + i) + 0.5
  end function
  subroutine fail(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    integer :: e
    print *, 'FAIL ', what, ': ', code, ' ', trim(nfmpi_strerror(code))
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine
end program
