#!/usr/bin/env python3
"""The Kubernetes example (examples/k8s): the rendered manifests are valid and consistent, a
values file that misses a name is refused, and entrypoint.sh run as one local process per pod,
with the environment each pod sees, trains the digits MLP over MPI with one process's results.
"""
import argparse
import base64
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "k8s")
BUILD = os.path.join(ROOT, "build")


def values_file(directory, **overrides):
    values = {"JOB_NAME": "loom-test", "HOSTS": "3", "DEVICES_PER_HOST": "2",
              "IMAGE": "registry.example/loom:1", "CONFIG": "configs/mlp-digits.toml",
              "LAUNCHER": "coordinator", "CPU_PER_HOST": "2", "MEMORY_PER_HOST": "2Gi"}
    values.update(overrides)
    path = os.path.join(directory, "values.env")
    with open(path, "w") as f:
        f.write("# test values\n")
        for name, value in values.items():
            if value is not None:
                f.write(f"{name}={value}\n")
    return path


def prepare(directory, **overrides):
    return subprocess.run([os.path.join(EXAMPLE, "prepare.sh"), values_file(directory, **overrides)],
                          env=dict(os.environ, LOOM_K8S_OUT=directory),
                          capture_output=True, text=True)



def free_port():
    """A port nothing listens on, drawn below the kernel's ephemeral range: one the kernel
    handed out (bind to port 0) is soon handed to another test's outgoing connection."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    last = low - 1 if low > 11000 else 29999
    for _ in range(200):
        port = random.randint(10000, last)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port between 10000 and %d" % last)

class Manifests(unittest.TestCase):
    def test_rendered_manifests_are_valid_and_consistent(self):
        with tempfile.TemporaryDirectory() as d:
            run = prepare(d)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(os.path.join(d, "job.yaml")) as f:
                text = f.read()
            self.assertNotIn("{{", text)
            service, job = list(yaml.safe_load_all(text))
            with open(os.path.join(d, "ssh-secret.yaml")) as f:
                secret = yaml.safe_load(f)
            self.assertEqual(service["kind"], "Service")
            self.assertEqual(service["spec"]["clusterIP"], "None")  # headless
            self.assertEqual(job["kind"], "Job")
            spec = job["spec"]
            self.assertEqual(spec["completionMode"], "Indexed")
            self.assertEqual(spec["completions"], 3)
            self.assertEqual(spec["parallelism"], 3)
            pod = spec["template"]["spec"]
            # Pod i is reachable as loom-test-i.loom-test through the Service.
            self.assertEqual(pod["subdomain"], service["metadata"]["name"])
            self.assertEqual(service["spec"]["selector"], {"job-name": job["metadata"]["name"]})
            container = pod["containers"][0]
            self.assertEqual(container["image"], "registry.example/loom:1")
            entry = container["command"][0]
            self.assertTrue(entry.startswith("/loom/"))
            self.assertTrue(os.access(os.path.join(ROOT, entry[len("/loom/"):]), os.X_OK))
            env = {e["name"]: e["value"] for e in container["env"]}
            self.assertEqual(env["LOOM_HOSTS"], "3")
            self.assertEqual(env["LOOM_DEVICES_PER_HOST"], "2")
            self.assertEqual(env["LOOM_JOB_NAME"], job["metadata"]["name"])
            self.assertEqual(env["LOOM_LAUNCHER"], "coordinator")
            # The coordinator's port is open on the pods and named by the Service.
            self.assertIn({"name": "coordinator", "port": 1234}, service["spec"]["ports"])
            self.assertIn({"containerPort": 1234}, container["ports"])
            self.assertTrue(os.path.exists(os.path.join(ROOT, env["LOOM_CONFIG"])))
            # The key the pods mount is the Secret prepare.sh wrote, and it holds a key pair.
            self.assertEqual(pod["volumes"][0]["secret"]["secretName"], secret["metadata"]["name"])
            private = base64.b64decode(secret["data"]["id_ed25519"]).decode()
            public = base64.b64decode(secret["data"]["authorized_keys"]).decode()
            self.assertIn("BEGIN OPENSSH PRIVATE KEY", private)
            self.assertTrue(public.startswith("ssh-ed25519 "))
            limits = container["resources"]["limits"]
            self.assertEqual(limits, {"cpu": "2", "memory": "2Gi"})

    def test_a_values_file_missing_a_name_is_refused_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            run = prepare(d, IMAGE=None)
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("{{IMAGE}}", run.stderr)


def digits_args(out):
    return ["--set", "training.epochs=2", "--set", f"training.out_dir={out}"]


def eval_line(output):
    match = re.search(r"eval accuracy [0-9.]+  eval loss [0-9.]+", output)
    return match.group(0) if match else None


def start_pods(env, directory):
    """entrypoint.sh as pods 1 and 0 of the job, with `env` (pod 1 first: order must not matter)."""
    entry = os.path.join(EXAMPLE, "entrypoint.sh")
    return [subprocess.Popen([entry] + digits_args(os.path.join(directory, "job")),
                             env=dict(env, JOB_COMPLETION_INDEX=str(i)),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for i in (1, 0)]


class PodsAsLocalProcesses(unittest.TestCase):
    def one_process(self, train, directory):
        """The digits job trained by one process, the reference."""
        one = subprocess.run([train, os.path.join(ROOT, "configs/mlp-digits.toml")] +
                             digits_args(os.path.join(directory, "one")),
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(one.returncode, 0, one.stdout + one.stderr)
        return one

    def test_the_entry_script_trains_over_two_hosts_like_one_process(self):
        with tempfile.TemporaryDirectory() as d:
            train = os.path.join(BUILD, "bin", "loom-train")
            one = self.one_process(train, d)
            # The environment job.yaml gives each pod, with ssh and sshd replaced for a machine
            # without them.
            env = dict(os.environ, LOOM_JOB_NAME="loom-test", LOOM_HOSTS="2",
                       LOOM_DEVICES_PER_HOST="2", LOOM_CONFIG="configs/mlp-digits.toml",
                       LOOM_LAUNCHER="mpirun",
                       LOOM_ROOT=ROOT, LOOM_TRAIN=train, LOOM_START_SSHD="0",
                       LOOM_RSH_AGENT=os.path.join(ROOT, "tests", "k8s", "local-rsh.sh"),
                       LOOM_DONE_FILE=os.path.join(d, "done"))
            pods = start_pods(env, d)
            outputs = [p.communicate(timeout=300)[0] for p in pods]
            worker, launcher = outputs
            self.assertEqual(pods[1].returncode, 0, launcher)
            self.assertEqual(pods[0].returncode, 0, worker)
            self.assertIn("launcher: 2 hosts (loom-test-0.loom-test,loom-test-1.loom-test)", launcher)
            for rank in (0, 1):
                self.assertIn(f"Rank {rank}: epoch: 1/2, batch: 23/23, batch size: 64, "
                              "batch per host size: 32", launcher)
                self.assertIn(f"Rank {rank}: training completed.", launcher)
            self.assertIsNotNone(eval_line(one.stdout), one.stdout)
            self.assertEqual(eval_line(launcher), eval_line(one.stdout))

    def test_pods_joining_through_the_coordinator_train_like_one_process(self):
        with tempfile.TemporaryDirectory() as d:
            train = os.path.join(BUILD, "bin", "loom-train")
            one = self.one_process(train, d)
            # Pod 0's name does not resolve here: the coordinator is this machine.
            port = free_port()
            env = dict(os.environ, LOOM_JOB_NAME="loom-test", LOOM_HOSTS="2",
                       LOOM_DEVICES_PER_HOST="2", LOOM_CONFIG="configs/mlp-digits.toml",
                       LOOM_LAUNCHER="coordinator", LOOM_ROOT=ROOT, LOOM_TRAIN=train,
                       LOOM_COORDINATOR_HOST="127.0.0.1", LOOM_COORDINATOR_PORT=str(port))
            pods = start_pods(env, d)
            pod1, pod0 = [p.communicate(timeout=300)[0] for p in pods]
            self.assertEqual(pods[1].returncode, 0, pod0)
            self.assertEqual(pods[0].returncode, 0, pod1)
            for rank, output in ((0, pod0), (1, pod1)):
                self.assertIn(f"Rank {rank}: epoch: 1/2, batch: 23/23, batch size: 64, "
                              "batch per host size: 32", output)
                self.assertIn(f"Rank {rank}: training completed.", output)
            self.assertIsNotNone(eval_line(one.stdout), one.stdout)
            self.assertEqual(eval_line(pod0), eval_line(one.stdout))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=BUILD)
    args, rest = parser.parse_known_args()
    BUILD = args.build
    unittest.main(argv=[sys.argv[0]] + rest)
