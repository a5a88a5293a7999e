"""Makes System V shared memory (four 16 MiB segments, touched), a message queue and a
semaphore set under the keys from target.txt, then exits: none may outlive the bot."""
import ctypes
import sys

from _hostile import contained, libc, play

IPC_CREAT = 0o1000


def attack(request):
    with open("target.txt") as handle:
        base = int(handle.read().strip())
    libc.shmat.restype = ctypes.c_void_p
    made = []
    for number in range(4):
        shmid = libc.shmget(base + number, 16 << 20, IPC_CREAT | 0o666)
        if shmid < 0:
            contained(f"shmget: errno {ctypes.get_errno()}")
        address = libc.shmat(shmid, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            contained(f"shmat: errno {ctypes.get_errno()}")
        ctypes.memset(address, 1, 16 << 20)  # resident, not just reserved
        made.append(shmid)
    queue = libc.msgget(base + 10, IPC_CREAT | 0o666)
    semaphores = libc.semget(base + 20, 4, IPC_CREAT | 0o666)
    print(f"made shm {made}, queue {queue}, semaphores {semaphores}", file=sys.stderr)
    contained("left them behind and exits")


play(attack)
