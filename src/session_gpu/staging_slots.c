/*-------------------------------------------------------------------------
 *
 * staging_slots.c
 *	  The session's own GPU path: its pinned staging slots and their
 *	  copies to and from the device (staging_slots.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pg/chunks.h"
#include "session_gpu/session_device.h"
#include "gpuscan_device.h"
#include "session_gpu/staging_slots.h"

/* gs_staging_begin -- see staging_slots.h */
void
gs_staging_begin(const char *fn)
{
	gs_copy_workers_begin(fn);
	GS_DEVICE_CHECK(gsd_staging_configure(gs_slot_bytes()), fn);
}

/* gs_slot -- see staging_slots.h */
GsSlot
gs_slot(int slot, const char *fn)
{
	GsSlot		s;
	void	   *host,
			   *device;

	GS_DEVICE_CHECK(gsd_staging_slot(slot, &host, &device), fn);
	s.host = host;
	s.device = device;
	return s;
}

/* gs_upload_slot -- see staging_slots.h */
void
gs_upload_slot(int slot, Size offset, Size bytes, const char *fn)
{
	GS_DEVICE_CHECK(gsd_upload_staged(slot, offset, bytes), fn);
}

/* gs_download_to_slot -- see staging_slots.h */
void
gs_download_to_slot(int slot, Size offset, const void *d_src, Size bytes, const char *fn)
{
	GS_DEVICE_CHECK(gsd_download_staged(slot, offset, d_src, bytes), fn);
}
