MemcpyHtoD,0x00007f2e3c000000,262144
kernel-1.traceg.xz
