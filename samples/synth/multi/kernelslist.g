MemcpyHtoD,0x00007f2e3c000000,65536
kernel-1.traceg.xz
MemcpyHtoD,0x00007f2e3c030000,65536
MemcpyHtoD,0x00007f2e3c040000,65536
kernel-2.traceg.xz
kernel-3.traceg.xz
kernel-4.traceg.xz
kernel-5.traceg.xz
