/* mem/addrmap: the GPGPU-Sim DRAM address mapping (FORMATS.md B.6).
 *
 * A mapping string is an optional "dramid@S;" followed by 64 mapping characters, bit 63
 * first ('.', ' ' and '|' are ignored): R row, B bank, C column, S byte within burst (also
 * part of the column), D channel, 0 unused. With "dramid@S" the channel is not in the map:
 * for a power-of-two channel count log2(n) channel bits are inserted at bit S, otherwise
 * the channel is (addr >> S) mod n and the other fields come from the folded address. */
#ifndef LOCKSTEP_MEM_ADDRMAP_H
#define LOCKSTEP_MEM_ADDRMAP_H

#include "../base/base.h"

#include <stdint.h>

typedef struct mem_addrmap {
    int chip_start;   /* S of "dramid@S", or -1 when the map has D bits */
    uint64_t row, bank, col, burst, chan; /* masks as written (before channel insertion) */
    /* mem_addrmap_bind: the masks for one channel count, so a decode does not rebuild them */
    uint32_t bound_n_mem; /* 0: none */
    uint64_t bound[5];
    int bound_plain;      /* the bound masks apply to the address as it is (no mod/div) */
} mem_addrmap;

typedef struct mem_addr {
    uint32_t channel, sub_partition; /* sub_partition is global: channel * n_sub + bank % n_sub */
    uint32_t bank;
    uint64_t row, col, burst;
} mem_addr;

/* Parses a mapping string. Errors name the offending character and what was expected. */
int mem_addrmap_parse(mem_addrmap *m, const char *s, base_err *e);

/* Remembers the masks for n_mem channels (mem_addrmap_masks), which decodes for that count
 * then reuse; a decode for another count still works, only slower. Call before the map is
 * shared between threads. */
void mem_addrmap_bind(mem_addrmap *m, uint32_t n_mem);

/* Decodes `addr` for n_mem channels of n_sub sub-partitions each (both >= 1). No partition
 * hashing is applied here (that is -gpgpu_memory_partition_indexing, a separate step). */
void mem_addrmap_decode(const mem_addrmap *m, uint32_t n_mem, uint32_t n_sub, uint64_t addr,
                        mem_addr *out);

/* Only the bank and row fields of mem_addrmap_decode (what a DRAM channel needs per request). */
void mem_addrmap_bank_row(const mem_addrmap *m, uint32_t n_mem, uint64_t addr, uint32_t *bank,
                          uint64_t *row);

/* The masks actually used by mem_addrmap_decode for n_mem channels (channel bits inserted
 * when n_mem is a power of two), in the order row, bank, col, burst, chan: what GPGPU-Sim
 * prints as addr_dec_mask[...]. */
void mem_addrmap_masks(const mem_addrmap *m, uint32_t n_mem, uint64_t out[5]);

/* Packs the bits of `v` selected by `mask` together, lowest first. */
uint64_t mem_pack_bits(uint64_t v, uint64_t mask);

#endif
