/* C helpers for cpnc: MPI datatype of an nc_type, and the typed ncmpi_* calls
 * (which check NC_ECHAR, unlike the flexible API) for conformance tests. */
#include <pnetcdf.h>

static MPI_Datatype mpi_type_of(int t) {
    switch (t) {
    case NC_BYTE:   return MPI_SIGNED_CHAR;
    case NC_CHAR:   return MPI_CHAR;
    case NC_SHORT:  return MPI_SHORT;
    case NC_INT:    return MPI_INT;
    case NC_FLOAT:  return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    case NC_UBYTE:  return MPI_UNSIGNED_CHAR;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_UINT:   return MPI_UNSIGNED;
    case NC_INT64:  return MPI_LONG_LONG_INT;
    case NC_UINT64: return MPI_UNSIGNED_LONG_LONG;
    }
    return MPI_DATATYPE_NULL;
}

#define BYTYPE(OPK, COLL, ...) switch (t) { \
    case NC_BYTE:   return ncmpi_##OPK##_schar##COLL(__VA_ARGS__, (signed char*)buf); \
    case NC_CHAR:   return ncmpi_##OPK##_text##COLL(__VA_ARGS__, (char*)buf); \
    case NC_SHORT:  return ncmpi_##OPK##_short##COLL(__VA_ARGS__, (short*)buf); \
    case NC_INT:    return ncmpi_##OPK##_int##COLL(__VA_ARGS__, (int*)buf); \
    case NC_FLOAT:  return ncmpi_##OPK##_float##COLL(__VA_ARGS__, (float*)buf); \
    case NC_DOUBLE: return ncmpi_##OPK##_double##COLL(__VA_ARGS__, (double*)buf); \
    case NC_UBYTE:  return ncmpi_##OPK##_uchar##COLL(__VA_ARGS__, (unsigned char*)buf); \
    case NC_USHORT: return ncmpi_##OPK##_ushort##COLL(__VA_ARGS__, (unsigned short*)buf); \
    case NC_UINT:   return ncmpi_##OPK##_uint##COLL(__VA_ARGS__, (unsigned int*)buf); \
    case NC_INT64:  return ncmpi_##OPK##_longlong##COLL(__VA_ARGS__, (long long*)buf); \
    case NC_UINT64: return ncmpi_##OPK##_ulonglong##COLL(__VA_ARGS__, (unsigned long long*)buf); \
    } return NC_EBADTYPE;

#define BOTH(OPK, ...) if (coll) { BYTYPE(OPK, _all, __VA_ARGS__) } else { BYTYPE(OPK, , __VA_ARGS__) }

/* kind: 0 var, 1 var1, 2 vara, 3 vars, 4 varn with one start/count (NULL starts when st is NULL) */
static int typed_put(int kind, int coll, int ncid, int varid, const MPI_Offset *st,
                     const MPI_Offset *ct, const MPI_Offset *sd, void *buf, int t) {
    MPI_Offset *sts[1] = {(MPI_Offset*)st}, *cts[1] = {(MPI_Offset*)ct};
    switch (kind) {
    case 0: BOTH(put_var, ncid, varid)
    case 1: BOTH(put_var1, ncid, varid, st)
    case 2: BOTH(put_vara, ncid, varid, st, ct)
    case 3: BOTH(put_vars, ncid, varid, st, ct, sd)
    case 4: BOTH(put_varn, ncid, varid, 1, st ? sts : NULL, ct ? cts : NULL)
    }
    return NC_EINVAL;
}

static int typed_get(int kind, int coll, int ncid, int varid, const MPI_Offset *st,
                     const MPI_Offset *ct, const MPI_Offset *sd, void *buf, int t) {
    MPI_Offset *sts[1] = {(MPI_Offset*)st}, *cts[1] = {(MPI_Offset*)ct};
    switch (kind) {
    case 0: BOTH(get_var, ncid, varid)
    case 1: BOTH(get_var1, ncid, varid, st)
    case 2: BOTH(get_vara, ncid, varid, st, ct)
    case 3: BOTH(get_vars, ncid, varid, st, ct, sd)
    case 4: BOTH(get_varn, ncid, varid, 1, st ? sts : NULL, ct ? cts : NULL)
    }
    return NC_EINVAL;
}

