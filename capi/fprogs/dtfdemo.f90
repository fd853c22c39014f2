! dtfdemo: a Fortran writer and reader in the style of DTF's own example. Each
! calls dtf_init with the config and its component name, creates or opens
! "pressure_wave_test.nc" (the config's filename is the DTF-style substring
! "pressure_wave_test"), puts or gets a 3-D float array, ends the epoch with
! dtf_transfer, asks nfmpi_get_file_info for the file's hints, closes and calls
! dtf_finalize. The communicator is the component's, from couplet_comm: in one
! mpirun it holds this program's ranks only, in a launch of its own the world.
program dtfdemo
  implicit none
  include 'mpif.h'
  include 'pnetcdf.inc'
  external dtf_init, dtf_transfer, dtf_finalize, couplet_comm
  integer, parameter :: nx = 8, ny = 6, nz = 4
  integer :: ierr, comm, rank, nprocs, ncid, varid, dimids(3), info, nkeys, i, j, k, nbad
  integer(kind=MPI_OFFSET_KIND) :: start(3), count(3), len
  real :: p(nx, ny, nz)
  character(len=16) :: role
  character(len=256) :: dir, cfg, path
  call MPI_Init(ierr)
  call getarg(1, role)
  call getarg(2, dir)
  call getarg(3, cfg)
  path = trim(dir)//'/pressure_wave_test.nc'
  if (role == 'wrt') then
    call dtf_init(trim(cfg)//CHAR(0), 'wrt'//CHAR(0), ierr)
  else
    call dtf_init(trim(cfg)//CHAR(0), 'rdr'//CHAR(0), ierr)
  end if
  if (ierr /= 0) call fail('dtf_init', ierr)
  call couplet_comm(comm, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  count = (/ int(nx, MPI_OFFSET_KIND), int(ny, MPI_OFFSET_KIND), int(nz / nprocs, MPI_OFFSET_KIND) /)
  start = (/ 1_MPI_OFFSET_KIND, 1_MPI_OFFSET_KIND, int(rank * (nz / nprocs) + 1, MPI_OFFSET_KIND) /)
  if (role == 'wrt') then
    ierr = nfmpi_create(comm, trim(path), IOR(NF_CLOBBER, NF_64BIT_DATA), MPI_INFO_NULL, ncid)
    if (ierr /= NF_NOERR) call fail('create', ierr)
    len = nx
    ierr = nfmpi_def_dim(ncid, 'x', len, dimids(1))
    len = ny
    ierr = nfmpi_def_dim(ncid, 'y', len, dimids(2))
    len = nz
    ierr = nfmpi_def_dim(ncid, 'z', len, dimids(3))
    ierr = nfmpi_def_var(ncid, 'pressure', NF_FLOAT, 3, dimids, varid)
    if (ierr /= NF_NOERR) call fail('def_var', ierr)
    ierr = nfmpi_enddef(ncid)
    do k = 1, int(count(3))
      do j = 1, ny
        do i = 1, nx
          p(i, j, k) = value(i, j, int(start(3)) + k - 1)
        end do
      end do
    end do
    ierr = nfmpi_put_vara_real_all(ncid, varid, start, count, p)
    if (ierr /= NF_NOERR) call fail('put_vara_real_all', ierr)
  else
    ierr = nfmpi_open(comm, trim(path), NF_NOWRITE, MPI_INFO_NULL, ncid)
    if (ierr /= NF_NOERR) call fail('open', ierr)
    ierr = nfmpi_inq_varid(ncid, 'pressure', varid)
    if (ierr /= NF_NOERR) call fail('inq_varid', ierr)
    p = -1.0
    ierr = nfmpi_get_vara_real_all(ncid, varid, start, count, p)
    if (ierr /= NF_NOERR) call fail('get_vara_real_all', ierr)
  end if
  call dtf_transfer(trim(path)//CHAR(0), ncid, ierr)
  if (ierr /= 0) call fail('dtf_transfer', ierr)
  ierr = nfmpi_get_file_info(ncid, info)
  if (ierr /= NF_NOERR) call fail('get_file_info', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call MPI_Info_free(info, ierr)
  if (role /= 'wrt') then
    nbad = 0
    do k = 1, int(count(3))
      do j = 1, ny
        do i = 1, nx
          if (p(i, j, k) /= value(i, j, int(start(3)) + k - 1)) nbad = nbad + 1
        end do
      end do
    end do
    if (nbad == 0) then
      print '(A,I0,A,I0,A,I0)', 'DTF rank ', rank, ' verified ', nx * ny * int(count(3)), ' values, info keys ', nkeys
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
  real function value(i, j, k)
    integer, intent(in) :: i, j, k
    value = real(k * 10000 + j * 100 + i) + 0.25
  end function
  subroutine fail(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    integer :: e
    print *, 'FAIL ', what, ': ', code, ' ', trim(nfmpi_strerror(code))
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine
end program
