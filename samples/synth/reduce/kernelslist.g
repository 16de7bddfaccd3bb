MemcpyHtoD,0x00007f2e3c000000,131072
kernel-1.traceg.xz
