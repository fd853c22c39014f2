/* DYAD's data transport layer modes and communication modes. */
#ifndef DYAD_COMMON_DYAD_DTL_H
#define DYAD_COMMON_DYAD_DTL_H

#include <dyad/common/dyad_structures.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dyad_dtl_mode {
    DYAD_DTL_UCX = 0,
    DYAD_DTL_FLUX_RPC = 1,
    DYAD_DTL_DEFAULT = 1,
    DYAD_DTL_MARGO = 2, /* recognised, but not available on this platform */
    DYAD_DTL_END = 3
};
typedef enum dyad_dtl_mode dyad_dtl_mode_t;

static const char *dyad_dtl_mode_name[DYAD_DTL_END + 1] __attribute__((unused)) = {
    "UCX", "FLUX_RPC", "MARGO", "DTL_UNKNOWN"};

enum dyad_dtl_comm_mode {
    DYAD_COMM_NONE = 0, /* no role */
    DYAD_COMM_RECV = 1, /* consumer */
    DYAD_COMM_SEND = 2, /* producer */
    DYAD_COMM_END = 3
};
typedef enum dyad_dtl_comm_mode dyad_dtl_comm_mode_t;

#define DYAD_DTL_RPC_NAME "dyad.fetch"

struct dyad_dtl;

#ifdef __cplusplus
}
#endif

#endif /* DYAD_COMMON_DYAD_DTL_H */
