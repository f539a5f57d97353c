/*-------------------------------------------------------------------------
 *
 * staging_area.c
 *	  The GPU service's staging area in shared memory (staging_area.h).
 *
 * A byte per page says whether it is taken, under one spinlock; an
 * allocation is the first run of free pages long enough.  The area is a
 * few hundred pages, and a request allocates once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"

#include "ipc/staging_area.h"

typedef struct GsStagingShared
{
	slock_t		mutex;			/* protects everything below */
	int			npages;
	int			pages_used;
	int64		staged;			/* requests whose data went through the area ... */
	int64		unstaged;		/* ... and through a segment of their own */
	bool		taken[FLEXIBLE_ARRAY_MEMBER];	/* per page */
} GsStagingShared;

int			gpuscan_service_staging_mb = 128;

static GsStagingShared *staging = NULL;
static char *staging_area = NULL;

/* npages -- pages in the area as configured */
static int
npages(void)
{
	return (int) (((Size) gpuscan_service_staging_mb * 1024 * 1024) / GS_STAGING_PAGE);
}

/* gs_staging_shmem_size -- see staging_area.h */
Size
gs_staging_shmem_size(void)
{
	Size		size = add_size(offsetof(GsStagingShared, taken), npages());

	/* the area starts on a page of its own: room to align it */
	return add_size(add_size(MAXALIGN(size), GS_STAGING_PAGE),
					mul_size(npages(), GS_STAGING_PAGE));
}

/* gs_staging_shmem_init -- see staging_area.h; under AddinShmemInitLock */
void
gs_staging_shmem_init(void)
{
	bool		found;
	char	   *base;

	base = ShmemInitStruct("gpuscan service staging", gs_staging_shmem_size(), &found);
	staging = (GsStagingShared *) base;
	staging_area = (char *) TYPEALIGN(GS_STAGING_PAGE,
									  base + MAXALIGN(offsetof(GsStagingShared, taken) + npages()));
	if (found)
		return;
	SpinLockInit(&staging->mutex);
	staging->npages = npages();
	staging->pages_used = 0;
	staging->staged = staging->unstaged = 0;
	memset(staging->taken, 0, staging->npages);
}

/* gs_staging_base -- see staging_area.h */
char *
gs_staging_base(void)
{
	return staging != NULL && staging->npages > 0 ? staging_area : NULL;
}

/* gs_staging_size -- see staging_area.h */
Size
gs_staging_size(void)
{
	return staging != NULL ? (Size) staging->npages * GS_STAGING_PAGE : 0;
}

/* gs_staging_alloc -- see staging_area.h */
bool
gs_staging_alloc(Size bytes, int64 *offset, int64 *length)
{
	int			want = (int) Max((bytes + GS_STAGING_PAGE - 1) / GS_STAGING_PAGE, 1);
	int			run = 0;
	int			i;

	if (staging == NULL || bytes > gs_staging_size())
		return false;
	SpinLockAcquire(&staging->mutex);
	for (i = 0; i < staging->npages; i++)
	{
		run = staging->taken[i] ? 0 : run + 1;
		if (run == want)
			break;
	}
	if (run == want)
	{
		int			first = i - want + 1;

		memset(&staging->taken[first], 1, want);
		staging->pages_used += want;
		*offset = (int64) first * GS_STAGING_PAGE;
		*length = (int64) want * GS_STAGING_PAGE;
	}
	SpinLockRelease(&staging->mutex);
	return run == want;
}

/* gs_staging_valid -- see staging_area.h */
bool
gs_staging_valid(int64 offset, int64 length)
{
	return staging != NULL && offset >= 0 && length > 0 &&
		offset % GS_STAGING_PAGE == 0 && length % GS_STAGING_PAGE == 0 &&
		offset + length <= (int64) gs_staging_size();
}

/* gs_staging_free -- see staging_area.h */
void
gs_staging_free(int64 offset, int64 length)
{
	int			first = (int) (offset / GS_STAGING_PAGE);
	int			n = (int) (length / GS_STAGING_PAGE);

	if (!gs_staging_valid(offset, length))
		return;
	SpinLockAcquire(&staging->mutex);
	memset(&staging->taken[first], 0, n);
	staging->pages_used -= n;
	SpinLockRelease(&staging->mutex);
}

/* gs_staging_count -- see staging_area.h */
void
gs_staging_count(bool staged)
{
	if (staging == NULL)
		return;
	SpinLockAcquire(&staging->mutex);
	if (staged)
		staging->staged++;
	else
		staging->unstaged++;
	SpinLockRelease(&staging->mutex);
}

/* gs_staging_summary -- see staging_area.h */
char *
gs_staging_summary(void)
{
	int			used;
	int64		staged,
				unstaged;

	if (staging == NULL)
		return NULL;
	SpinLockAcquire(&staging->mutex);
	used = staging->pages_used;
	staged = staging->staged;
	unstaged = staging->unstaged;
	SpinLockRelease(&staging->mutex);
	return psprintf("%.1f MB of shared memory, %.1f MB in use; " INT64_FORMAT
					" requests through it, " INT64_FORMAT " through segments of their own",
					gs_staging_size() / 1048576.0, used * (GS_STAGING_PAGE / 1048576.0),
					staged, unstaged);
}
