"""Stands in for `python3 <argv...>` (warm-python.ts): `python3 -S -E client.py <socket> <python> <argv...>`.

It hands its stdin, stdout and stderr, its working directory, its environment and the argv to
the warm interpreter listening on <socket> (zygote.py), forwards SIGTERM, SIGINT and SIGHUP to
the program's process group, and ends as the program ended: the same exit status, or killed by
the same signal (if the zygote dies first, it kills the program and exits 70). Whoever stops
this process stops the program: killed outright, its connection closes and the zygote kills the
program. When no zygote answers before the program starts,
it becomes the cold program itself (exec of <python> <argv...>), so a run never depends on the
warm path. Starts in about 20 ms (no site, standard library only).
"""
import json
import os
import signal
import socket
import struct
import sys

HEADER = struct.Struct("!I")
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def cold(argv, pending):
    """Becomes the program itself, unless it was asked to stop before it started."""
    if pending:
        signal.signal(pending[0], signal.SIG_DFL)
        os.kill(os.getpid(), pending[0])
    os.execv(argv[0], argv)


def connect(path, argv):
    """The connection with the request sent, or None when the zygote cannot take it."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        body = json.dumps({"argv": argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        socket.send_fds(s, [HEADER.pack(len(body))], [0, 1, 2])
        s.sendall(body)
        return s
    except OSError:
        return None


def main():
    path, argv = sys.argv[1], sys.argv[2:]
    pending = []  # the signals asked of this process, in order
    pid = None

    def deliver(sig):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:  # not yet its own group, or already gone
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def forward(sig, _frame):
        pending.append(sig)
        if pid is not None:
            deliver(sig)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    conn = connect(path, argv)
    if conn is None:
        cold(argv, pending)
    answers = conn.makefile("r")
    first = answers.readline()
    if not first:
        cold(argv, pending)  # the zygote went away before it started the program
    started = json.loads(first)
    if "pid" not in started:
        sys.stderr.write(f"cspipe warm interpreter: {started.get('error', first)}; starting cold\n")
        cold(argv, pending)
    pid = started["pid"]
    for sig in pending:
        deliver(sig)
    line = answers.readline()
    if not line:  # the zygote died: nobody can report the program's end, so it ends here
        deliver(signal.SIGKILL)
        sys.stderr.write(f"cspipe warm interpreter: it went away while {' '.join(argv[1:3])} ran; the program was stopped\n")
        os._exit(70)
    end = json.loads(line)
    if pending:  # asked to stop: what the program started goes too, as with a cold program's process group
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if "signal" in end:
        for sig in FORWARDED:
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(end["signal"], signal.SIG_DFL)
        os.kill(os.getpid(), end["signal"])
        os._exit(128 + end["signal"])
    os._exit(end["exit"])


if __name__ == "__main__":
    main()
