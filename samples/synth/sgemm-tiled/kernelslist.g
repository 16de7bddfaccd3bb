MemcpyHtoD,0x00007f2e3c000000,16384
MemcpyHtoD,0x00007f2e3c004000,16384
kernel-1.traceg.xz
