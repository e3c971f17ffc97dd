#!/usr/bin/env python3
"""Two ways to replace a big file, as fragstats replaces its ratings checkpoint
(src/state/spare.rs):

  new    write a new file, rename it over the old one (the rename frees the old file)
  spare  write over a spare file of about the same size, swap it with the old one
         (renameat2 RENAME_EXCHANGE, Linux)

    python3 benches/file_replace.py [DIR] [MB] [ROUNDS]   (default /tmp, 72 MB, 5 rounds)

Prints the seconds of each step, per round. DIR should be on the file system of the state folder.
"""
import ctypes
import os
import sys
import time

directory = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
size = int(sys.argv[2]) if len(sys.argv) > 2 else 72
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
data = os.urandom(size * 1024 * 1024)
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
target = os.path.join(directory, "file_replace.bin")
spare = os.path.join(directory, "file_replace.spare")
new = os.path.join(directory, "file_replace.new")


def write(path, flags):
    fd = os.open(path, os.O_WRONLY | flags, 0o644)
    os.write(fd, data)
    os.ftruncate(fd, len(data))
    os.close(fd)


for path in (target, spare):
    write(path, os.O_CREAT | os.O_TRUNC)
try:
    for _ in range(rounds):
        t0 = time.perf_counter()
        write(new, os.O_CREAT | os.O_TRUNC)
        t1 = time.perf_counter()
        os.rename(new, target)
        t2 = time.perf_counter()
        write(spare, os.O_CREAT)
        t3 = time.perf_counter()
        if libc.renameat2(AT_FDCWD, spare.encode(), AT_FDCWD, target.encode(), RENAME_EXCHANGE):
            sys.exit("renameat2(RENAME_EXCHANGE) failed: errno %d" % ctypes.get_errno())
        t4 = time.perf_counter()
        print("new: write %.3f s, rename %.3f s | spare: write %.3f s, swap %.4f s"
              % (t1 - t0, t2 - t1, t3 - t2, t4 - t3))
finally:
    for path in (target, spare, new):
        if os.path.exists(path):
            os.remove(path)
