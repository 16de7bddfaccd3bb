MemcpyHtoD,0x00007f1a2c000000,1000
MemcpyHtoD,0x00007f1a2c000400,1000
kernel-1.traceg
