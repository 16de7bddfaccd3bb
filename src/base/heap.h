/* base_heap: transparent huge pages for malloc's heap.
 *
 * A page fault costs about 1.7 us on the VMs lockstep is benchmarked on (a Firecracker guest),
 * and the model's state is touched a 4 KB page at a time: a 900-cycle kernel on a small GPU
 * took 400 faults, a third of its process time, and gather on an RTX 3070 3,700. With the heap
 * on 2 MB pages that is one fault per 2 MB (about 50 us of clearing), and a few TLB entries
 * cover what every cycle walks.
 *
 * Contract: base_heap_hugepages is called once, by the only thread, before the model is
 * built. It is best effort: where the C library, the kernel or a sanitizer's allocator does
 * not play along, it changes nothing that matters and returns 0. It never changes what a run
 * computes, only where the bytes live. Memory kept by malloc is no longer handed back to the
 * kernel until exit (a huge page would be split to do it), so peak RSS can grow by up to one
 * huge page per 2 MB of heap. */
#ifndef LOCKSTEP_BASE_HEAP_H
#define LOCKSTEP_BASE_HEAP_H

/* 1 when later heap allocations land on memory marked for huge pages, else 0. */
int base_heap_hugepages(void);
/* What base_heap_hugepages returned (0 before it is called): base_slab_alloc takes
 * mid-sized slabs from the heap only when it is huge-page backed. */
int base_heap_is_huge(void);

/* Faults in, with one call, the part of malloc's first heap that nothing has touched yet
 * (about 130 KB, where the command line and config files are parsed). On the development VM
 * a page fault took ~11 us in November 2026 (in a slower spell than the 1.7 us above) and a
 * bulk populate ~1.3 us a page: 30 faults fewer, 0.3 ms off a 4 ms run. Best effort, like
 * base_heap_hugepages: a no-op where the kernel or C library lacks the means. Called first
 * thing in main, by the only thread. */
void base_heap_prefault(void);

#endif
