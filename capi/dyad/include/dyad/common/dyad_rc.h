/* DYAD's return codes (dyad_rc_t), with the values of C DYAD's dyad_rc.h. */
#ifndef DYAD_COMMON_DYAD_RC_H
#define DYAD_COMMON_DYAD_RC_H

#ifdef __cplusplus
extern "C" {
#endif

#define DYAD_DLL_EXPORTED __attribute__((__visibility__("default")))
#define DYAD_DLL_HIDDEN __attribute__((__visibility__("hidden")))
#define DYAD_PFA_ANNOTATE

enum dyad_core_return_codes {
    DYAD_RC_OK = 0,       /* it worked */
    DYAD_RC_SYSFAIL = -1, /* a system call failed (errno says which) */
    /* internal */
    DYAD_RC_NOCTX = -1000,          /* no DYAD context: call dyad_init or dyad_init_env */
    DYAD_RC_BADMETADATA = -1001,    /* malformed metadata */
    DYAD_RC_BADFIO = -1002,         /* file I/O failed */
    DYAD_RC_BADMANAGEDPATH = -1003, /* no usable managed directory */
    DYAD_RC_BADDTLMODE = -1004,     /* unknown or unavailable DTL mode */
    DYAD_RC_UNTRACKED = -1005,      /* the path is not under the managed directory */
    DYAD_RC_BAD_B64DECODE = -1006,
    DYAD_RC_BAD_COMM_MODE = -1007, /* invalid comm mode */
    DYAD_RC_BAD_CLI_ARG_DEF = -1008,
    DYAD_RC_BAD_CLI_PARSE = -1009,
    DYAD_RC_BADBUF = -1010, /* invalid buffer or pointer argument */
    /* service (Flux in C DYAD, the node agent here) */
    DYAD_RC_FLUXFAIL = -2000,  /* the node agent could not be reached */
    DYAD_RC_BADCOMMIT = -2001, /* the agent refused to publish */
    DYAD_RC_NOTFOUND = -2002,  /* not produced (within the timeout) */
    DYAD_RC_BADFETCH = -2003,  /* staging the file failed */
    DYAD_RC_BADRPC = -2004,    /* the agent's reply was missing or malformed */
    DYAD_RC_BADPACK = -2005,
    DYAD_RC_BADUNPACK = -2006,
    DYAD_RC_RPC_FINISHED = -2007,
    /* UCX */
    DYAD_RC_UCXINIT_FAIL = -3001,
    DYAD_RC_UCXWAIT_FAIL = -3002,
    DYAD_RC_UCXEP_FAIL = -3003,
    DYAD_RC_UCXCOMM_FAIL = -3004,
    DYAD_RC_UCXMMAP_FAIL = -3005,
    DYAD_RC_UCXRKEY_PACK_FAILED = -3006,
    DYAD_RC_UCXRKEY_UNPACK_FAILED = -3007,
};

typedef enum dyad_core_return_codes dyad_rc_t;

#define DYAD_IS_ERROR(code) ((code) < 0)
#define FLUX_IS_ERROR(code) ((code) < 0)

/* couplet_dyad_strerror names a return code; couplet_dyad_last_error returns the
 * message of the calling thread's last failed call (empty if none). */
DYAD_DLL_EXPORTED const char *couplet_dyad_strerror(dyad_rc_t rc);
DYAD_DLL_EXPORTED const char *couplet_dyad_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* DYAD_COMMON_DYAD_RC_H */
