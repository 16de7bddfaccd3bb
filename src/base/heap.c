/* base_heap: see heap.h for why. */
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include "heap.h"

#include "base.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !BASE_ASAN
#include <malloc.h>
#define HEAP_CAN 1
#else
#define HEAP_CAN 0
#endif

#define HUGE_BYTES ((uintptr_t)2 << 20)
#define PAGE_BYTES ((uintptr_t)4096)
/* malloc grows the heap by this much beyond a request: the marked stretch holds the model of
 * any run that fits in it, and address space costs nothing until touched. */
#define HEAP_STEP (256 << 20)
/* Blocks below this come from the heap (so from huge pages); larger ones, such as a whole
 * trace file read at once, stay separate mappings that go back to the kernel when freed. */
#define HEAP_MMAP_MIN (32 << 20)

static int heap_huge;

#if HEAP_CAN
/* Held for good, so that no later block lands on their small pages: the rest of malloc's
 * first top chunk, and the block that made malloc grow the heap below the boundary. */
static void *heap_plug, *heap_gap;

/* malloc must neither trim the heap (that splits huge pages) nor map mid-sized blocks apart. */
static int heap_tune(void)
{
    return mallopt(M_TRIM_THRESHOLD, INT_MAX) && mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_MIN) &&
           mallopt(M_TOP_PAD, HEAP_STEP);
}

/* Moves the break to just below a 2 MB boundary and makes malloc grow the heap there, with a
 * first block that only a grown heap can hold (it is larger than all free memory) and that
 * ends below the boundary. Nothing above the boundary has been touched when it is marked, and
 * the pages below it hold only that block's ends. Returns the boundary, or NULL. */
static char *heap_move(void)
{
    struct mallinfo2 mi = mallinfo2();
    if (mi.keepcost > 256 && mi.keepcost < ((size_t)1 << 20))
        heap_plug = malloc(mi.keepcost - 128);
    size_t gap_n = mallinfo2().fordblks + 1024;
    uintptr_t below = (gap_n + 64 + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
    char *cur = sbrk(0);
    if (gap_n > ((size_t)1 << 20) || cur == (char *)-1)
        return NULL;
    uintptr_t edge = ((uintptr_t)cur + below + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
    if (sbrk((intptr_t)(edge - below - (uintptr_t)cur)) == (void *)-1)
        return NULL;
    heap_gap = malloc(gap_n);
    return heap_gap ? (char *)edge : NULL;
}
#endif

int base_heap_hugepages(void)
{
#if HEAP_CAN
    if (heap_huge || !heap_tune())
        return heap_huge;
    char *edge = heap_move();
    char *end = sbrk(0);
    if (!edge || end == (char *)-1 || end < edge + HUGE_BYTES)
        return 0; /* malloc did not grow the heap with sbrk */
    heap_huge = madvise(edge, (size_t)(end - edge), MADV_HUGEPAGE) == 0;
#endif
    return heap_huge;
}

int base_heap_is_huge(void) { return heap_huge; }

void base_heap_prefault(void)
{
#if HEAP_CAN && defined(MADV_POPULATE_WRITE)
    char *p = malloc(1), *top = sbrk(0);
    uintptr_t from = ((uintptr_t)p + PAGE_BYTES) & ~(PAGE_BYTES - 1); /* past p's page */
    if (p && top != (char *)-1 && (uintptr_t)top > from)
        (void)madvise((void *)from, (size_t)((uintptr_t)top - from), MADV_POPULATE_WRITE);
    free(p);
#endif
}
