#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a test kernel on an emulated tiered-memory machine and run a command.

The machine's NUMA layout comes from topologies/<name>.json (data, not code):
each node has memory, optional CPUs, and optional HMAT latency/bandwidth that
place CPU-less nodes in lower memory tiers.  The guest runs the host's root
file system read-only over virtio-9p, so the host's numactl, python3, damo
and our test binaries are used as they are.  The command's output goes to
build/vm/<name>/output.log (and is streamed to stdout); its exit status is
read from a GUEST_EXIT=<rc> marker the guest writes to the kernel log (QEMU
itself exits 0 whatever the guest did).  The whole serial log is kept under
build/logs/.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
EXIT_RE = re.compile(r"GUEST_EXIT=(\d+)")


def load_topology(name):
    """Return the topology dict of @name (a file name or a path)."""
    path = name if os.path.sep in name else os.path.join(HERE, "topologies", name + ".json")
    with open(path) as f:
        topo = json.load(f)
    topo["name"] = os.path.splitext(os.path.basename(path))[0]
    return topo


def _tail(path, done):
    """Copy @path to stdout as it grows, until @done is set."""
    pos = 0
    while True:
        finished = done.is_set()
        try:
            with open(path, errors="replace") as f:
                f.seek(pos)
                chunk = f.read()
                pos = f.tell()
        except OSError:
            chunk = ""
        if chunk:
            sys.stdout.write(chunk)
            sys.stdout.flush()
        if finished:
            return
        time.sleep(0.5)


def mem_mb(size):
    if size == "0":
        return 0
    units = {"M": 1, "G": 1024}
    return int(size[:-1]) * units[size[-1].upper()]


def qemu_numa_args(topo):
    """QEMU -smp/-m/-numa arguments for @topo.

    A node whose "mem" is "0" has no boot memory: tests plug pc-dimm
    devices into it through QMP.  "hotplug_slots" and "hotplug_max" size
    the room for them.
    """
    nodes = topo["nodes"]
    ncpus = 0
    for n in nodes:
        if "cpus" in n:
            last = n["cpus"].split("-")[-1]
            ncpus = max(ncpus, int(last) + 1)
    hmat = any("latency_ns" in n for n in nodes)
    total = sum(mem_mb(n["mem"]) for n in nodes)
    # One socket per node with CPUs: CPUs of different nodes sharing a
    # socket (QEMU's default) make the kernel warn in topology_sane().
    sockets = max(1, sum(1 for n in nodes if "cpus" in n))
    mem = "%dM" % total
    if "hotplug_slots" in topo:
        mem += ",slots=%d,maxmem=%dM" % (topo["hotplug_slots"],
                                         total + mem_mb(topo["hotplug_max"]))
    args = ["-smp", "%d,sockets=%d,cores=%d,threads=1" % (ncpus, sockets, ncpus // sockets),
            "-m", mem,
            "-machine", "pc,hmat=%s" % ("on" if hmat else "off")]
    for i, n in enumerate(nodes):
        spec = "node,nodeid=%d" % i
        if mem_mb(n["mem"]):
            args += ["-object", "memory-backend-ram,id=mem%d,size=%s" % (i, n["mem"])]
            spec += ",memdev=mem%d" % i
        if "cpus" in n:
            spec += ",cpus=%s" % n["cpus"]
        elif hmat:
            spec += ",initiator=0"
        args += ["-numa", spec]
    if hmat:
        for i, n in enumerate(nodes):
            base = "hmat-lb,initiator=0,target=%d,hierarchy=memory" % i
            args += ["-numa", base + ",data-type=access-latency,latency=%d" % n["latency_ns"],
                     "-numa", base + ",data-type=access-bandwidth,bandwidth=%s" % n["bandwidth"]]
    return args


class Qmp:
    """A minimal QMP client: one command at a time, events are skipped."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.rd = self.sock.makefile("r")
        json.loads(self.rd.readline())          # the greeting
        self.cmd({"execute": "qmp_capabilities"})

    def cmd(self, req):
        self.sock.sendall((json.dumps(req) + "\n").encode())
        while True:
            msg = json.loads(self.rd.readline())
            if "event" not in msg:
                return msg


def _qmp_agent(path, outdir, done):
    """Run the QMP commands the guest asks for, until @done is set.

    The guest writes a command (one JSON object) to qmp/N.req in its output
    directory and waits for qmp/N.rep, which gets QEMU's reply: tests use
    it to plug and unplug memory the way a CXL box's firmware would.
    """
    reqdir = os.path.join(outdir, "qmp")
    qmp = None
    while not done.wait(0.2):
        for f in sorted(os.listdir(reqdir)):
            if not f.endswith(".req"):
                continue
            base = os.path.join(reqdir, f[:-4])
            try:
                with open(base + ".req") as r:
                    req = json.load(r)
                if qmp is None:
                    qmp = Qmp(path)
                rep = qmp.cmd(req)
            except (OSError, ValueError) as e:
                rep = {"error": {"class": "HostError", "desc": str(e)}}
            os.unlink(base + ".req")
            with open(base + ".tmp", "w") as w:
                json.dump(rep, w)
            os.rename(base + ".tmp", base + ".rep")


def build_initramfs():
    """(Re)build build/initramfs.cpio.gz from busybox-static and guest-init."""
    out = os.path.join(BUILD, "initramfs.cpio.gz")
    init = os.path.join(HERE, "guest-init")
    busybox = "/bin/busybox"
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(init):
        return out
    root = os.path.join(BUILD, "initramfs")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "sbin", "proc", "sys", "dev", "host", "tmp"):
        os.makedirs(os.path.join(root, d))
    shutil.copy(busybox, os.path.join(root, "bin", "busybox"))
    os.symlink("busybox", os.path.join(root, "bin", "sh"))
    shutil.copy(init, os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    subprocess.run("cd %s && find . | cpio -o -H newc --quiet | gzip -1 > %s.tmp && mv %s.tmp %s"
                   % (shlex.quote(root), out, out, out), shell=True, check=True)
    return out


def run(topology, command, kernel=None, timeout=600, name=None, append="",
        echo="guest", workdir=TOP, env=None, machine=None):
    """Boot @topology, run the shell @command in the guest, return its rc.

    @machine names the machine in $TOPOLOGY for the guest (default: the
    topology's name); check.py uses "<topology>:run" for boots of the
    production-config kernel.

    @echo selects what is copied to stdout while the guest runs: "all"
    (whole serial log), "guest" (the command's output only) or "none".
    Returns (rc, serial_log_path, out_dir).  rc is 124 on timeout and 125
    when the guest died before reporting an exit status.
    """
    topo = load_topology(topology)
    machine = machine or topo["name"]
    name = name or machine.replace(":", "-")
    kernel = kernel or os.path.join(BUILD, "test", "arch", "x86", "boot", "bzImage")
    if not os.path.exists(kernel):
        sys.exit("vm: no kernel at %s (make kernel)" % kernel)
    initrd = build_initramfs()
    outdir = os.path.join(BUILD, "vm", name)
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    logdir = os.path.join(BUILD, "logs")
    os.makedirs(logdir, exist_ok=True)
    log_path = os.path.join(logdir, name + ".log")

    lines = ["export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
             "export HOME=/tmp TOP=%s BUILD=%s TOPOLOGY=%s" %
             (shlex.quote(TOP), shlex.quote(BUILD), shlex.quote(machine))]
    for k, v in (env or {}).items():
        lines.append("export %s=%s" % (k, shlex.quote(v)))
    lines += ["cd %s || exit 126" % shlex.quote(workdir), command]
    with open(os.path.join(outdir, "cmd.sh"), "w") as f:
        f.write("\n".join(lines) + "\n")

    # pci=noacpi: ACPI PCI IRQ routing takes ~18 s per virtio device under
    # TCG with the debug kernel (and holds up RCU long enough for a warning);
    # the PIRQ table is instant.  But without ACPI's host bridge windows the
    # guest moves virtio's 64-bit BARs to 4 GiB, where QEMU maps hot-plugged
    # DIMMs: machines with "acpi_pci" keep ACPI for PCI and take IRQ routing
    # from the PIRQ table (acpi=noirq) instead.
    cmdline = ("console=ttyS0 printk.time=1 printk.devkmsg=on panic=-1 %s "
               "tiering.top=%s %s %s" % ("acpi=noirq" if topo.get("acpi_pci") else "pci=noacpi",
                                         TOP, topo.get("append", ""), append))
    # AF_UNIX paths are short: the QMP socket goes to the temporary directory.
    qmp_path = os.path.join(tempfile.gettempdir(), "tiering-vm-%d-%s.qmp" % (os.getpid(), name))
    os.makedirs(os.path.join(outdir, "qmp"))
    qemu = ["qemu-system-x86_64", "-accel", "tcg", "-nographic", "-no-reboot",
            "-kernel", kernel, "-initrd", initrd, "-append", cmdline,
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
                       "readonly=on,multidevs=remap",
            "-virtfs", "local,path=%s,mount_tag=out,security_model=none" % outdir,
            # The repository again: the guest's /tmp is a tmpfs, which would
            # hide a clone under /tmp.
            "-virtfs", "local,path=%s,mount_tag=top,security_model=none,readonly=on,"
                       "multidevs=remap" % TOP,
            "-device", "virtio-rng-pci",
            "-serial", "stdio", "-monitor", "none",
            "-qmp", "unix:%s,server=on,wait=off" % qmp_path] + qemu_numa_args(topo)

    rc = None
    proc = subprocess.Popen(qemu, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    t0 = time.time()
    done = threading.Event()
    tailer = None
    agent = threading.Thread(target=_qmp_agent, args=(qmp_path, outdir, done), daemon=True)
    agent.start()
    if echo == "guest":
        tailer = threading.Thread(target=_tail, args=(os.path.join(outdir, "output.log"), done))
        tailer.start()
    try:
        with open(log_path, "w", errors="replace") as log:
            for raw in proc.stdout:
                line = raw.decode("utf-8", "replace").replace("\r", "")
                log.write(line)
                m = EXIT_RE.search(line)
                if m:
                    rc = int(m.group(1))
                if echo == "all":
                    sys.stdout.write(line)
                    sys.stdout.flush()
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
        done.set()
        if tailer:
            tailer.join()
        agent.join()
        if os.path.exists(qmp_path):
            os.unlink(qmp_path)
    elapsed = time.time() - t0
    if rc is None:
        if elapsed >= timeout:
            print("vm: %s timed out after %ds (serial log: %s)" % (name, timeout, log_path))
            rc = 124
        else:
            print("vm: %s died without an exit status (serial log: %s)" % (name, log_path))
            rc = 125
    return rc, log_path, outdir


def run_json(topology, command, kernel, name, timeout, who,
             append="kunit.enable=0"):
    """Run @command in the guest quietly; the JSON objects it printed, one
    per line.  Exits naming @who and the serial log when the guest failed
    or printed none."""
    rc, log, outdir = run(topology, command, kernel=kernel, timeout=timeout,
                          name=name, append=append, echo="none")
    rows = []
    with open(os.path.join(outdir, "output.log")) as f:
        for line in f:
            if line.startswith("{"):
                rows.append(json.loads(line))
    if rc != 0 or not rows:
        sys.exit("%s: %s failed (rc %d, serial log %s)" % (who, name, rc, log))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-t", "--topology", default="2tier")
    ap.add_argument("-k", "--kernel")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--name")
    ap.add_argument("--append", default="", help="extra kernel command line")
    ap.add_argument("--echo", choices=("all", "guest", "none"), default="guest")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = " ".join(a.command[1:] if a.command[:1] == ["--"] else a.command) or "true"
    rc, log, _ = run(a.topology, cmd, a.kernel, a.timeout, a.name, a.append, a.echo)
    sys.exit(rc)


if __name__ == "__main__":
    main()
