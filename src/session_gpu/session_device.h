/*-------------------------------------------------------------------------
 *
 * session_device.h
 *	  The device from PostgreSQL's side: errors, tracked device memory
 *	  (session_device.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_DEVICE_PG_H
#define GPUSCAN_DEVICE_PG_H

#include "postgres.h"

#include "gpuscan_device.h"

/*
 * Raise an ERROR for a failed device call, with a SQLSTATE for the kind of
 * failure; a sticky failure also turns the GPU off for this backend.
 */
#if PG_VERSION_NUM >= 180000
extern pg_noreturn void gs_device_error(gsd_status status, const char *fn);
#else
extern void gs_device_error(gsd_status status, const char *fn) pg_attribute_noreturn();
#endif

/* Check a device call's status: ERROR unless GSD_OK. */
#define GS_DEVICE_CHECK(call, fn) \
	do { gsd_status gs_st_ = (call); \
		 if (gs_st_ != GSD_OK) gs_device_error(gs_st_, (fn)); } while (0)

/*
 * Device memory owned by the current resource owner: released at the end
 * of the statement if an ERROR or a cancel skips gs_device_free().
 */
extern void *gs_device_alloc(Size bytes, const char *fn);
extern void gs_device_free(void *dptr);

/* Bytes of device memory this backend has allocated and not freed. */
extern Size gs_device_bytes_tracked(void);

/* Install the resource-owner callback (from _PG_init). */
extern void gs_device_init(void);

#endif							/* GPUSCAN_DEVICE_PG_H */
