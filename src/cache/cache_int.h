/* cache internals shared by the files of src/cache (not for other modules). */
#ifndef LOCKSTEP_CACHE_INT_H
#define LOCKSTEP_CACHE_INT_H
#include "cache.h"

/* log2 of a power of two. */
unsigned cache_log2(uint64_t v);
/* Set of a (byte) address under c's set index function (c already checked). */
uint32_t cache_index_hash(const cache_cfg *c, unsigned line_log2, unsigned set_log2,
                          uint64_t addr);

/* IPOLY by table: the parities of index bit k over the higher address bits (line address
 * >> log2 sets), four bits at a time; XORed over the five nibbles below bit 20 (all the
 * masks reach) with the low index bits, they give cache_index_hash's set. */
void cache_ipoly_table(uint32_t sets, uint8_t tab[5][16]);

/* Which per-way stamp a built-in policy takes the minimum of (0 last use, 1 allocation
 * time), so the cache can pick its victim in the same pass as its candidates; -1 for a
 * policy that only provides victim(). */
int cache_repl_stamp(const cache_repl_ops *o);

#endif
