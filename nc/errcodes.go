package nc

// Error codes, equal to PnetCDF's (pnetcdf.h of PnetCDF 1.12.3).
const (
	EBADID                  Error = -33
	ENFILE                  Error = -34
	EEXIST                  Error = -35
	EINVAL                  Error = -36
	EPERM                   Error = -37
	ENOTINDEFINE            Error = -38
	EINDEFINE               Error = -39
	EINVALCOORDS            Error = -40
	EMAXDIMS                Error = -41
	ENAMEINUSE              Error = -42
	ENOTATT                 Error = -43
	EMAXATTS                Error = -44
	EBADTYPE                Error = -45
	EBADDIM                 Error = -46
	EUNLIMPOS               Error = -47
	EMAXVARS                Error = -48
	ENOTVAR                 Error = -49
	EGLOBAL                 Error = -50
	ENOTNC                  Error = -51
	ESTS                    Error = -52
	EMAXNAME                Error = -53
	EUNLIMIT                Error = -54
	ENORECVARS              Error = -55
	ECHAR                   Error = -56
	EEDGE                   Error = -57
	ESTRIDE                 Error = -58
	EBADNAME                Error = -59
	ERANGE                  Error = -60
	ENOMEM                  Error = -61
	EVARSIZE                Error = -62
	EDIMSIZE                Error = -63
	ETRUNC                  Error = -64
	EAXISTYPE               Error = -65
	EDAP                    Error = -66
	ECURL                   Error = -67
	EIO                     Error = -68
	ENODATA                 Error = -69
	EDAPSVC                 Error = -70
	EDAS                    Error = -71
	EDDS                    Error = -72
	ESMALL                  Error = -201
	ENOTINDEP               Error = -202
	EINDEP                  Error = -203
	EOFILE                  Error = -207
	EMULTITYPES             Error = -208
	EIOMISMATCH             Error = -209
	ENEGATIVECNT            Error = -210
	EUNSPTETYPE             Error = -211
	EINVAL_REQUEST          Error = -212
	EAINT_TOO_SMALL         Error = -213
	ENOTSUPPORT             Error = -214
	ENULLBUF                Error = -215
	EPREVATTACHBUF          Error = -216
	ENULLABUF               Error = -217
	EPENDINGBPUT            Error = -218
	EINSUFFBUF              Error = -219
	ENOENT                  Error = -220
	EINTOVERFLOW            Error = -221
	ENOTENABLED             Error = -222
	EBAD_FILE               Error = -223
	ENO_SPACE               Error = -224
	EQUOTA                  Error = -225
	ENULLSTART              Error = -226
	ENULLCOUNT              Error = -227
	EINVAL_CMODE            Error = -228
	ETYPESIZE               Error = -229
	ETYPE_MISMATCH          Error = -230
	ETYPESIZE_MISMATCH      Error = -231
	ESTRICTCDF2             Error = -232
	ENOTRECVAR              Error = -233
	ENOTFILL                Error = -234
	EINVAL_OMODE            Error = -235
	EPENDING                Error = -236
	EMAX_REQ                Error = -237
	EBADLOG                 Error = -238
	EFLUSHED                Error = -239
	EADIOS                  Error = -240
	EMULTIDEFINE            Error = -250
	EMULTIDEFINE_OMODE      Error = -251
	EMULTIDEFINE_DIM_NUM    Error = -252
	EMULTIDEFINE_DIM_SIZE   Error = -253
	EMULTIDEFINE_DIM_NAME   Error = -254
	EMULTIDEFINE_VAR_NUM    Error = -255
	EMULTIDEFINE_VAR_NAME   Error = -256
	EMULTIDEFINE_VAR_NDIMS  Error = -257
	EMULTIDEFINE_VAR_DIMIDS Error = -258
	EMULTIDEFINE_VAR_TYPE   Error = -259
	EMULTIDEFINE_VAR_LEN    Error = -260
)

// ETIMEDOUT is couplet's own code, outside PnetCDF's range (PnetCDF 1.12
// uses down to -269): a coupled peer did not answer within the configured
// timeout, or died. capi/pnetcdf.h defines NC_ETIMEDOUT with this value.
const ETIMEDOUT Error = -300

// messages are ncmpi_strerror's strings for each code.
var messages = map[Error]string{
	EBADID:                  "NetCDF: Not a valid ID",
	ENFILE:                  "NetCDF: Too many files open",
	EEXIST:                  "NetCDF: File exists && NC_NOCLOBBER",
	EINVAL:                  "NetCDF: Invalid argument",
	EPERM:                   "NetCDF: Write to read only",
	ENOTINDEFINE:            "NetCDF: Operation not allowed in data mode",
	EINDEFINE:               "NetCDF: Operation not allowed in define mode",
	EINVALCOORDS:            "NetCDF: Index exceeds dimension bound",
	EMAXDIMS:                "NetCDF: NC_MAX_DIMS or NC_MAX_VAR_DIMS exceeded",
	ENAMEINUSE:              "NetCDF: String match to name in use",
	ENOTATT:                 "NetCDF: Attribute not found",
	EMAXATTS:                "NetCDF: NC_MAX_ATTRS exceeded",
	EBADTYPE:                "NetCDF: Not a valid data type or _FillValue type mismatch",
	EBADDIM:                 "NetCDF: Invalid dimension ID or name",
	EUNLIMPOS:               "NetCDF: NC_UNLIMITED in the wrong index",
	EMAXVARS:                "NetCDF: NC_MAX_VARS exceeded",
	ENOTVAR:                 "NetCDF: Variable not found",
	EGLOBAL:                 "NetCDF: Action prohibited on NC_GLOBAL varid",
	ENOTNC:                  "NetCDF: Unknown file format (file format violates CDF specification)",
	ESTS:                    "NetCDF: In Fortran, string too short",
	EMAXNAME:                "NetCDF: NC_MAX_NAME exceeded",
	EUNLIMIT:                "NetCDF: NC_UNLIMITED size already in use",
	ENORECVARS:              "NetCDF: nc_rec op when there are no record vars",
	ECHAR:                   "NetCDF: Attempt to convert between text & numbers",
	EEDGE:                   "NetCDF: Start+count exceeds dimension bound",
	ESTRIDE:                 "NetCDF: Illegal stride",
	EBADNAME:                "NetCDF: Name contains illegal characters",
	ERANGE:                  "NetCDF: Numeric conversion not representable",
	ENOMEM:                  "NetCDF: Memory allocation (malloc) failure",
	EVARSIZE:                "NetCDF: One or more variable sizes violate format constraints",
	EDIMSIZE:                "NetCDF: Invalid dimension size",
	ETRUNC:                  "NetCDF: File likely truncated or possibly corrupted",
	EAXISTYPE:               "NetCDF: Illegal axis type",
	EDAP:                    "NetCDF: DAP failure",
	ECURL:                   "NetCDF: libcurl failure",
	EIO:                     "NetCDF: I/O failure",
	ENODATA:                 "NetCDF: Variable has no data",
	EDAPSVC:                 "NetCDF: DAP server error",
	EDAS:                    "NetCDF: Malformed or inaccessible DAP DAS",
	EDDS:                    "NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response",
	ESMALL:                  "Size of MPI_Offset or MPI_Aint too small for requested format",
	ENOTINDEP:               "Operation not allowed in collective data mode",
	EINDEP:                  "Operation not allowed in independent data mode",
	EOFILE:                  "Fail to open/create file",
	EMULTITYPES:             "Multiple etypes used in MPI datatype",
	EIOMISMATCH:             "Input/Output data amount mismatch",
	ENEGATIVECNT:            "Negative count is prohibited",
	EUNSPTETYPE:             "Unsupported etype in the MPI datatype describing the I/O buffer",
	EINVAL_REQUEST:          "Invalid nonblocking request ID.",
	EAINT_TOO_SMALL:         "MPI_Aint not large enough to hold requested value.",
	ENOTSUPPORT:             "Feature is not yet supported.",
	ENULLBUF:                "Trying to attach a NULL buffer or the buffer size is negative.",
	EPREVATTACHBUF:          "Previous attached buffer is found.",
	ENULLABUF:               "No attached buffer is found.",
	EPENDINGBPUT:            "Cannot detach buffer due to pending bput request is found.",
	EINSUFFBUF:              "Attached buffer is too small.",
	ENOENT:                  "Specified netCDF file does not exist.",
	EINTOVERFLOW:            "Integer type casting overflow.",
	ENOTENABLED:             "Feature is not enabled at configure time.",
	EBAD_FILE:               "Invalid file name (e.g., path name too long).",
	ENO_SPACE:               "Not enough space.",
	EQUOTA:                  "Quota exceeded.",
	ENULLSTART:              "Argument start is a NULL pointer",
	ENULLCOUNT:              "Argument count is a NULL pointer",
	EINVAL_CMODE:            "Invalid file create mode",
	ETYPESIZE:               "MPI datatype size error (bigger than the variable size)",
	ETYPE_MISMATCH:          "etype of the MPI datatype mismatches the variable data type",
	ETYPESIZE_MISMATCH:      "MPI filetype size mismatches buftype size * bufcount",
	ESTRICTCDF2:             "Attempting CDF-5 operation on strict CDF or CDF-2 file",
	ENOTRECVAR:              "Attempting operation only for record variables",
	ENOTFILL:                "Attempting to fill a record when its variable fill mode is off",
	EINVAL_OMODE:            "Invalid or unsupported file open mode",
	EPENDING:                "Pending nonblocking request is found at file close",
	EMAX_REQ:                "Size of I/O request exceeds INT_MAX",
	EBADLOG:                 "Unrecognized burst buffering log file format.",
	EFLUSHED:                "Nonblocking requests already flushed.",
	EADIOS:                  "unknown ADIOS error.",
	EMULTIDEFINE:            "File header is inconsistent among processes",
	EMULTIDEFINE_OMODE:      "File open mode is inconsistent among processes.",
	EMULTIDEFINE_DIM_NUM:    "Number of dimensions is inconsistent among processes.",
	EMULTIDEFINE_DIM_SIZE:   "Dimension size is inconsistent among processes.",
	EMULTIDEFINE_DIM_NAME:   "Dimension name is inconsistent among processes.",
	EMULTIDEFINE_VAR_NUM:    "Number of variables is inconsistent among processes.",
	EMULTIDEFINE_VAR_NAME:   "Variable name is inconsistent among processes.",
	EMULTIDEFINE_VAR_NDIMS:  "Dimensionality of this variable is inconsistent among processes.",
	EMULTIDEFINE_VAR_DIMIDS: "Dimension IDs used to define this variable are inconsistent among processes.",
	EMULTIDEFINE_VAR_TYPE:   "Data type of this variable is inconsistent among processes.",
	EMULTIDEFINE_VAR_LEN:    "Number of elements of this variable is inconsistent among processes.",
	ETIMEDOUT:               "NetCDF: Timed out waiting for a coupled peer, or the peer died (couplet)",
}

// names maps each code to its NC_ constant name.
var names = map[Error]string{
	EBADID:                  "NC_EBADID",
	ENFILE:                  "NC_ENFILE",
	EEXIST:                  "NC_EEXIST",
	EINVAL:                  "NC_EINVAL",
	EPERM:                   "NC_EPERM",
	ENOTINDEFINE:            "NC_ENOTINDEFINE",
	EINDEFINE:               "NC_EINDEFINE",
	EINVALCOORDS:            "NC_EINVALCOORDS",
	EMAXDIMS:                "NC_EMAXDIMS",
	ENAMEINUSE:              "NC_ENAMEINUSE",
	ENOTATT:                 "NC_ENOTATT",
	EMAXATTS:                "NC_EMAXATTS",
	EBADTYPE:                "NC_EBADTYPE",
	EBADDIM:                 "NC_EBADDIM",
	EUNLIMPOS:               "NC_EUNLIMPOS",
	EMAXVARS:                "NC_EMAXVARS",
	ENOTVAR:                 "NC_ENOTVAR",
	EGLOBAL:                 "NC_EGLOBAL",
	ENOTNC:                  "NC_ENOTNC",
	ESTS:                    "NC_ESTS",
	EMAXNAME:                "NC_EMAXNAME",
	EUNLIMIT:                "NC_EUNLIMIT",
	ENORECVARS:              "NC_ENORECVARS",
	ECHAR:                   "NC_ECHAR",
	EEDGE:                   "NC_EEDGE",
	ESTRIDE:                 "NC_ESTRIDE",
	EBADNAME:                "NC_EBADNAME",
	ERANGE:                  "NC_ERANGE",
	ENOMEM:                  "NC_ENOMEM",
	EVARSIZE:                "NC_EVARSIZE",
	EDIMSIZE:                "NC_EDIMSIZE",
	ETRUNC:                  "NC_ETRUNC",
	EAXISTYPE:               "NC_EAXISTYPE",
	EDAP:                    "NC_EDAP",
	ECURL:                   "NC_ECURL",
	EIO:                     "NC_EIO",
	ENODATA:                 "NC_ENODATA",
	EDAPSVC:                 "NC_EDAPSVC",
	EDAS:                    "NC_EDAS",
	EDDS:                    "NC_EDDS",
	ESMALL:                  "NC_ESMALL",
	ENOTINDEP:               "NC_ENOTINDEP",
	EINDEP:                  "NC_EINDEP",
	EOFILE:                  "NC_EOFILE",
	EMULTITYPES:             "NC_EMULTITYPES",
	EIOMISMATCH:             "NC_EIOMISMATCH",
	ENEGATIVECNT:            "NC_ENEGATIVECNT",
	EUNSPTETYPE:             "NC_EUNSPTETYPE",
	EINVAL_REQUEST:          "NC_EINVAL_REQUEST",
	EAINT_TOO_SMALL:         "NC_EAINT_TOO_SMALL",
	ENOTSUPPORT:             "NC_ENOTSUPPORT",
	ENULLBUF:                "NC_ENULLBUF",
	EPREVATTACHBUF:          "NC_EPREVATTACHBUF",
	ENULLABUF:               "NC_ENULLABUF",
	EPENDINGBPUT:            "NC_EPENDINGBPUT",
	EINSUFFBUF:              "NC_EINSUFFBUF",
	ENOENT:                  "NC_ENOENT",
	EINTOVERFLOW:            "NC_EINTOVERFLOW",
	ENOTENABLED:             "NC_ENOTENABLED",
	EBAD_FILE:               "NC_EBAD_FILE",
	ENO_SPACE:               "NC_ENO_SPACE",
	EQUOTA:                  "NC_EQUOTA",
	ENULLSTART:              "NC_ENULLSTART",
	ENULLCOUNT:              "NC_ENULLCOUNT",
	EINVAL_CMODE:            "NC_EINVAL_CMODE",
	ETYPESIZE:               "NC_ETYPESIZE",
	ETYPE_MISMATCH:          "NC_ETYPE_MISMATCH",
	ETYPESIZE_MISMATCH:      "NC_ETYPESIZE_MISMATCH",
	ESTRICTCDF2:             "NC_ESTRICTCDF2",
	ENOTRECVAR:              "NC_ENOTRECVAR",
	ENOTFILL:                "NC_ENOTFILL",
	EINVAL_OMODE:            "NC_EINVAL_OMODE",
	EPENDING:                "NC_EPENDING",
	EMAX_REQ:                "NC_EMAX_REQ",
	EBADLOG:                 "NC_EBADLOG",
	EFLUSHED:                "NC_EFLUSHED",
	EADIOS:                  "NC_EADIOS",
	EMULTIDEFINE:            "NC_EMULTIDEFINE",
	EMULTIDEFINE_OMODE:      "NC_EMULTIDEFINE_OMODE",
	EMULTIDEFINE_DIM_NUM:    "NC_EMULTIDEFINE_DIM_NUM",
	EMULTIDEFINE_DIM_SIZE:   "NC_EMULTIDEFINE_DIM_SIZE",
	EMULTIDEFINE_DIM_NAME:   "NC_EMULTIDEFINE_DIM_NAME",
	EMULTIDEFINE_VAR_NUM:    "NC_EMULTIDEFINE_VAR_NUM",
	EMULTIDEFINE_VAR_NAME:   "NC_EMULTIDEFINE_VAR_NAME",
	EMULTIDEFINE_VAR_NDIMS:  "NC_EMULTIDEFINE_VAR_NDIMS",
	EMULTIDEFINE_VAR_DIMIDS: "NC_EMULTIDEFINE_VAR_DIMIDS",
	EMULTIDEFINE_VAR_TYPE:   "NC_EMULTIDEFINE_VAR_TYPE",
	EMULTIDEFINE_VAR_LEN:    "NC_EMULTIDEFINE_VAR_LEN",
	ETIMEDOUT:               "NC_ETIMEDOUT",
}
