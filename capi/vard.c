/* Flattening a vard filetype: the byte runs, relative to the variable's first
 * element, that an MPI derived datatype selects, in its type-map order. */
#include <stdlib.h>
#include "capi.h"
#include "more.h"

typedef struct {
	MPI_Offset *off, *len;
	int n, cap;
} runs_t;

static int add_run(runs_t *r, MPI_Offset off, MPI_Offset len) {
	if (len <= 0)
		return 0;
	if (r->n > 0 && r->off[r->n - 1] + r->len[r->n - 1] == off) {
		r->len[r->n - 1] += len;
		return 0;
	}
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 64;
		MPI_Offset *o = realloc(r->off, cap * sizeof *o), *l;
		if (!o)
			return NC_ENOMEM;
		r->off = o;
		if (!(l = realloc(r->len, cap * sizeof *l)))
			return NC_ENOMEM;
		r->len = l;
		r->cap = cap;
	}
	r->off[r->n] = off;
	r->len[r->n] = len;
	r->n++;
	return 0;
}

static int flatten(MPI_Datatype t, MPI_Offset base, runs_t *r);

static int flatten(MPI_Datatype t, MPI_Offset base, runs_t *r) {
	int ni, na, nd, comb, err = 0;
	MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	if (comb == MPI_COMBINER_NAMED) {
		int sz;
		MPI_Type_size(t, &sz);
		return add_run(r, base, sz);
	}
	int *iv = malloc((ni + 1) * sizeof *iv);
	MPI_Aint *av = malloc((na + 1) * sizeof *av);
	MPI_Datatype *tv = malloc((nd + 1) * sizeof *tv);
	if (!iv || !av || !tv) {
		free(iv); free(av); free(tv);
		return NC_ENOMEM;
	}
	MPI_Type_get_contents(t, ni, na, nd, iv, av, tv);
	MPI_Aint lb, ext = 0;
	if (nd > 0)
		MPI_Type_get_extent(tv[0], &lb, &ext);
	switch (comb) {
	case MPI_COMBINER_DUP:
	case MPI_COMBINER_RESIZED:
		err = flatten(tv[0], base, r);
		break;
	case MPI_COMBINER_CONTIGUOUS:
		for (int i = 0; i < iv[0] && !err; i++)
			err = flatten(tv[0], base + (MPI_Offset)i * ext, r);
		break;
	case MPI_COMBINER_VECTOR:
	case MPI_COMBINER_HVECTOR: {
		MPI_Offset stride = comb == MPI_COMBINER_VECTOR ? (MPI_Offset)iv[2] * ext : (MPI_Offset)av[0];
		for (int i = 0; i < iv[0] && !err; i++)
			for (int j = 0; j < iv[1] && !err; j++)
				err = flatten(tv[0], base + i * stride + (MPI_Offset)j * ext, r);
		break;
	}
	case MPI_COMBINER_INDEXED:
	case MPI_COMBINER_HINDEXED:
	case MPI_COMBINER_INDEXED_BLOCK:
	case MPI_COMBINER_HINDEXED_BLOCK: {
		int n = iv[0];
		for (int i = 0; i < n && !err; i++) {
			int bl;
			MPI_Offset d;
			switch (comb) {
			case MPI_COMBINER_INDEXED: bl = iv[1 + i]; d = (MPI_Offset)iv[1 + n + i] * ext; break;
			case MPI_COMBINER_HINDEXED: bl = iv[1 + i]; d = av[i]; break;
			case MPI_COMBINER_INDEXED_BLOCK: bl = iv[1]; d = (MPI_Offset)iv[2 + i] * ext; break;
			default: bl = iv[1]; d = av[i]; break;
			}
			for (int j = 0; j < bl && !err; j++)
				err = flatten(tv[0], base + d + (MPI_Offset)j * ext, r);
		}
		break;
	}
	case MPI_COMBINER_STRUCT: {
		int n = iv[0];
		for (int i = 0; i < n && !err; i++) {
			MPI_Aint l2, e2;
			MPI_Type_get_extent(tv[i], &l2, &e2);
			for (int j = 0; j < iv[1 + i] && !err; j++)
				err = flatten(tv[i], base + av[i] + (MPI_Offset)j * e2, r);
		}
		break;
	}
	case MPI_COMBINER_SUBARRAY: {
		int n = iv[0], order = iv[1 + 3 * n];
		const int *size = iv + 1, *sub = iv + 1 + n, *st = iv + 1 + 2 * n;
		MPI_Offset total = 1;
		for (int k = 0; k < n; k++)
			total *= sub[k];
		int *idx = calloc(n + 1, sizeof *idx);
		if (!idx) {
			err = NC_ENOMEM;
			break;
		}
		for (MPI_Offset e = 0; e < total && !err; e++) {
			/* linear offset of element idx in the full array, in the given order */
			MPI_Offset lin = 0;
			if (order == MPI_ORDER_C)
				for (int k = 0; k < n; k++) lin = lin * size[k] + st[k] + idx[k];
			else
				for (int k = n - 1; k >= 0; k--) lin = lin * size[k] + st[k] + idx[k];
			err = flatten(tv[0], base + lin * ext, r);
			/* next index, fastest dimension first */
			if (order == MPI_ORDER_C) {
				for (int k = n - 1; k >= 0; k--) { if (++idx[k] < sub[k]) break; idx[k] = 0; }
			} else {
				for (int k = 0; k < n; k++) { if (++idx[k] < sub[k]) break; idx[k] = 0; }
			}
		}
		free(idx);
		break;
	}
	default:
		err = NC_EINVAL; /* darray and the f90 parameterised types are not taken */
	}
	for (int i = 0; i < nd; i++) {
		int a, b, c, k;
		MPI_Type_get_envelope(tv[i], &a, &b, &c, &k);
		if (k != MPI_COMBINER_NAMED)
			MPI_Type_free(&tv[i]);
	}
	free(iv); free(av); free(tv);
	return err;
}

int couplet_flatten(MPI_Datatype t, MPI_Offset **off, MPI_Offset **len, int *n) {
	runs_t r = {0};
	int err = flatten(t, 0, &r);
	if (err) {
		free(r.off);
		free(r.len);
		return err;
	}
	*off = r.off;
	*len = r.len;
	*n = r.n;
	return 0;
}
