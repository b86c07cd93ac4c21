#!/usr/bin/env python3
"""Time to first screen of the explorer, as a user sees it: dfnav runs on a
pseudo-terminal of COLSxROWS, and the times from the start of the process
to the first output holding each marker are printed in milliseconds, a
line each in the markers' order ("-" when a marker never came). An
argument +KEYS among the markers types KEYS once every marker before it
has come: the markers after it are timed from then (what a user waits
for after a key), and only output after it counts for them. Then it
sends 'Q' and waits for the program to end. Standard library only.

usage: bench_pty.py COLSxROWS TIMEOUT_S [MARKER|+KEYS]... -- CMD ARGS..."""
import fcntl, os, pty, select, signal, struct, sys, termios, time


def main():
    sep = sys.argv.index("--")
    cols, rows = (int(x) for x in sys.argv[1].split("x"))
    timeout = float(sys.argv[2])
    steps = [m.encode() for m in sys.argv[3:sep]]
    cmd = sys.argv[sep + 1:]
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        # the size is set before the program starts, so that its first
        # screen is drawn once, at that size
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.environ["TERM"] = "xterm-256color"
        os.execvp(cmd[0], cmd)
    seen = {}
    out = b""
    step = 0           # the next of steps to wait for or to type
    start = t0         # when the last keys were typed
    while step < len(steps) and time.monotonic() - t0 < timeout:
        if steps[step].startswith(b"+"):
            os.write(fd, steps[step][1:])
            start = time.monotonic()
            out = b""
            step += 1
            continue
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        now = time.monotonic()
        out = out[-4096:] + chunk
        # the markers up to the next keys, each once, in any order
        k = step
        while k < len(steps) and not steps[k].startswith(b"+"):
            if k not in seen and steps[k] in out:
                seen[k] = (now - start) * 1e3
            k += 1
        if all(j in seen for j in range(step, k)):
            step = k
    for k, m in enumerate(steps):
        if not m.startswith(b"+"):
            print("%.1f" % seen[k] if k in seen else "-")
    try:
        os.write(fd, b"Q")
    except OSError:
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return 0
            select.select([fd], [], [], 0.05)
            os.read(fd, 65536)
        except OSError:
            pass
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
