MemcpyHtoD,0x00007f2e3c000000,65536
MemcpyHtoD,0x00007f2e3c010000,65536
kernel-1.traceg.xz
