C     f77: a plain F77 PnetCDF program (mpif.h, pnetcdf.inc). "w" writes a
C     12x10 double array T, block rows per rank, with nfmpi_put_vara_double_all;
C     "r" reads its block rows back with nfmpi_get_vara_double_all and checks
C     every value exactly. Nothing in it knows about couplet.
      program f77
      implicit none
      include 'mpif.h'
      include 'pnetcdf.inc'
      integer ny, nx
      parameter (ny = 12, nx = 10)
      integer ierr, rank, nprocs, ncid, dimids(2), varid, i, j, nbad
      integer*8 start(2), count(2), leny, lenx
      double precision buf(nx, ny)
      character*8 role
      character*256 path
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
      call getarg(1, role)
      call getarg(2, path)
      count(1) = nx
      count(2) = ny / nprocs
      start(1) = 1
      start(2) = rank * count(2) + 1
      if (role .eq. 'w') then
        ierr = nfmpi_create(MPI_COMM_WORLD, trim(path),
     +         IOR(NF_CLOBBER, NF_64BIT_DATA), MPI_INFO_NULL, ncid)
        call check(ierr, 'create')
        leny = ny
        lenx = nx
        ierr = nfmpi_def_dim(ncid, 'y', leny, dimids(2))
        ierr = nfmpi_def_dim(ncid, 'x', lenx, dimids(1))
        ierr = nfmpi_def_var(ncid, 'T', NF_DOUBLE, 2, dimids, varid)
        call check(ierr, 'def_var')
        ierr = nfmpi_enddef(ncid)
        call check(ierr, 'enddef')
        do j = 1, int(count(2))
          do i = 1, nx
            buf(i, j) = 1000.0d0 * (start(2) + j - 2) + (i - 1) + 0.5d0
          end do
        end do
        ierr = nfmpi_put_vara_double_all(ncid, varid, start, count, buf)
        call check(ierr, 'put_vara_double_all')
        ierr = nfmpi_close(ncid)
        call check(ierr, 'close')
      else
        ierr = nfmpi_open(MPI_COMM_WORLD, trim(path), NF_NOWRITE,
     +         MPI_INFO_NULL, ncid)
        call check(ierr, 'open')
        ierr = nfmpi_inq_varid(ncid, 'T', varid)
        call check(ierr, 'inq_varid')
        ierr = nfmpi_get_vara_double_all(ncid, varid, start, count, buf)
        call check(ierr, 'get_vara_double_all')
        nbad = 0
        do j = 1, int(count(2))
          do i = 1, nx
            if (buf(i, j) .ne. 1000.0d0 * (start(2) + j - 2) + (i - 1)
     +          + 0.5d0) nbad = nbad + 1
          end do
        end do
        ierr = nfmpi_close(ncid)
        call check(ierr, 'close')
        if (nbad .eq. 0) then
          print '(A,I0,A,I0,A)', 'F77 rank ', rank, ' verified ',
     +          nx * count(2), ' values'
        else
          print '(A,I0,A,I0,A)', 'F77 rank ', rank, ' FAIL ', nbad,
     +          ' wrong values'
        end if
      end if
      call MPI_Finalize(ierr)
      end

      subroutine check(ierr, what)
      implicit none
      include 'mpif.h'
      include 'pnetcdf.inc'
      integer ierr, e
      character*(*) what
      if (ierr .ne. NF_NOERR) then
        print *, 'FAIL ', what, ': ', trim(nfmpi_strerror(ierr))
        call MPI_Abort(MPI_COMM_WORLD, 1, e)
      end if
      end
