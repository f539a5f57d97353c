/*-------------------------------------------------------------------------
 *
 * staging_area.h
 *	  The GPU service's staging: one area of the server's shared memory,
 *	  registered with CUDA by each GPU's process when it starts, through
 *	  which a session hands a request's data to the service and gets the
 *	  answer back.
 *
 * A session copies its data into the area once, and the GPU copies from
 * and to it directly (pinned memory), where a dynamic shared memory
 * segment costs a new mapping in both processes and a copy through the
 * driver's own buffers.  The area is gpuscan.service_staging_size
 * megabytes, handed out in pages of GS_STAGING_PAGE bytes; a request that
 * finds no room goes through a segment of its own, as before.  Each
 * allocation belongs to a session's channel (channel.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SERVICE_STAGING_H
#define SERVICE_STAGING_H

#include "postgres.h"

/* the unit of allocation */
#define GS_STAGING_PAGE		((Size) 256 * 1024)

/* gpuscan.service_staging_size, in megabytes (0: none) */
extern int	gpuscan_service_staging_mb;

/* Shared memory for the area and its page table; create or attach it */
extern Size gs_staging_shmem_size(void);
extern void gs_staging_shmem_init(void);

/* The area in this process (NULL where there is none) and its size */
extern char *gs_staging_base(void);
extern Size gs_staging_size(void);

/*
 * Pages for `bytes` (at least one): their offset into the area and their
 * length in *offset and *length; false where the area has no such run free
 */
extern bool gs_staging_alloc(Size bytes, int64 *offset, int64 *length);

/* Give back what gs_staging_alloc gave */
extern void gs_staging_free(int64 offset, int64 length);

/* Whether offset and length name whole pages within the area */
extern bool gs_staging_valid(int64 offset, int64 length);

/* Count a request's data through the area (staged) or through a segment */
extern void gs_staging_count(bool staged);

/* One line for gpuscan_info(); NULL where the library was not preloaded */
extern char *gs_staging_summary(void);

#endif							/* SERVICE_STAGING_H */
