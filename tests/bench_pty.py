#!/usr/bin/env python3
"""Time to first screen of the explorer, as a user sees it: dfnav runs on a
pseudo-terminal of COLSxROWS, and the times from the start of the process
to the first output holding each marker are printed in milliseconds, a
line each in the markers' order ("-" when a marker never came). Then it sends 'Q'
and waits for the program to end. Standard library only.

usage: bench_pty.py COLSxROWS TIMEOUT_S MARKER... -- CMD ARGS..."""
import fcntl, os, pty, select, signal, struct, sys, termios, time


def main():
    sep = sys.argv.index("--")
    cols, rows = (int(x) for x in sys.argv[1].split("x"))
    timeout = float(sys.argv[2])
    markers = [m.encode() for m in sys.argv[3:sep]]
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
    while len(seen) < len(markers) and time.monotonic() - t0 < timeout:
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
        for m in markers:
            if m not in seen and m in out:
                seen[m] = (now - t0) * 1e3
    for m in markers:
        print("%.1f" % seen[m] if m in seen else "-")
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
