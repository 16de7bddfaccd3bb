MemcpyHtoD,0x00007f2e3c000000,524288
kernel-1.traceg.xz
