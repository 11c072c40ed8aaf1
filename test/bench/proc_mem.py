"""Memory of a process from /proc (Linux), for the benchmarks: a field of
/proc/<pid>/status in kB, a reset of its peak resident size (VmHWM), and a
thread that samples its private (RssAnon) and resident (VmRSS) size."""
import threading
import time


def status_kb(pid, key):
    """/proc/<pid>/status field `key` in kB, or -1 when unreadable."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def reset_hwm(pid="self"):
    """Resets VmHWM to the current resident size (needs the right to write
    /proc/<pid>/clear_refs: the same user or root); False when refused."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class PeakSampler:
    """Samples RssAnon / VmRSS of a pid every few ms in a thread."""

    def __init__(self, pid):
        self.pid, self.peak_anon, self.peak_rss, self._stop = pid, 0, 0, False
        self.t = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self._stop:
            a = status_kb(self.pid, "RssAnon")
            r = status_kb(self.pid, "VmRSS")
            self.peak_anon = max(self.peak_anon, a)
            self.peak_rss = max(self.peak_rss, r)
            time.sleep(0.005)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *a):
        self._stop = True
        self.t.join()
