"""The Python CLI tests' one way of running dmlbench: the command echoed with its output, the exit status asserted."""
import subprocess


def runner(exe, env=None, timeout=600):
    """run(*args, expect=0) -> stdout + stderr of `exe args`, asserting its exit status."""
    def run(*args, expect=0):
        p = subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=timeout)
        print(f"$ dmlbench {' '.join(args)}\n{p.stdout}{p.stderr}")
        assert p.returncode == expect, f"exit status {p.returncode}, expected {expect}"
        return p.stdout + p.stderr
    return run
