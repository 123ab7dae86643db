#!/usr/bin/env bash
# The pods' command. Pod i of the Indexed Job (JOB_COMPLETION_INDEX) is host i of the job and
# reachable as $LOOM_JOB_NAME-i.$LOOM_JOB_NAME (the headless Service). Two ways to start the
# processes (LOOM_LAUNCHER):
# - coordinator (the default, the seed's way): every pod runs loom-train as process i of the
#   job, with pod 0 as the coordinator (LOOM_COORDINATOR_ADDRESS, as
#   jax.distributed.initialize); no SSH. Each pod's status is its process's.
# - mpirun: every pod serves SSH with the shared key; pod 0 waits for them all, launches
#   loom-train on every host with mpirun (one process per host, as the Kubeflow MPI
#   Operator's launcher does), then tells the others to exit. The job's status is pod 0's.
#
# Environment (set by job.yaml): LOOM_JOB_NAME, LOOM_HOSTS, LOOM_DEVICES_PER_HOST,
# LOOM_CONFIG, LOOM_LAUNCHER, JOB_COMPLETION_INDEX; LOOM_CHECKPOINTS=true where
# training.out_dir is on a volume all pods share (each process writes its part of a
# checkpoint there). For running the pods as local processes (the tests):
# LOOM_RSH_AGENT (instead of ssh), LOOM_START_SSHD=0, LOOM_DONE_FILE, LOOM_TRAIN, LOOM_ROOT,
# LOOM_COORDINATOR_HOST (instead of pod 0's name), LOOM_COORDINATOR_PORT (default 1234).
set -euo pipefail
index=${JOB_COMPLETION_INDEX:?not set: run as a pod of an Indexed Job}
job=${LOOM_JOB_NAME:?} hosts=${LOOM_HOSTS:?} devices=${LOOM_DEVICES_PER_HOST:-1}
root=${LOOM_ROOT:-/loom}
train=${LOOM_TRAIN:-$root/build/bin/loom-train}
done_file=${LOOM_DONE_FILE:-/tmp/loom-job-done}
rsh=${LOOM_RSH_AGENT:-ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i /root/.ssh/id_ed25519}

host() { echo "$job-$1.$job"; }
# With checkpoints on the shared volume, a pod the Job restarts continues the run; without,
# it starts the run over, replacing what its first attempt wrote.
restart=(--overwrite)
if [ "${LOOM_CHECKPOINTS:-false}" = true ]; then restart=(--resume-or-start); fi

if [ "${LOOM_LAUNCHER:-coordinator}" = coordinator ]; then
  echo "host $index of $hosts: joining through the coordinator on host 0"
  LOOM_COORDINATOR_ADDRESS="${LOOM_COORDINATOR_HOST:-$(host 0)}:${LOOM_COORDINATOR_PORT:-1234}" \
    LOOM_NUM_PROCESSES=$hosts LOOM_PROCESS_ID=$index \
    exec "$train" "$root/$LOOM_CONFIG" --set "mesh.shape=[$((hosts * devices))]" \
    --set "checkpoint.enabled=${LOOM_CHECKPOINTS:-false}" ${restart[@]+"${restart[@]}"} "$@"
fi

if [ "${LOOM_START_SSHD:-1}" = 1 ]; then
  mkdir -p /root/.ssh /run/sshd
  install -m 0600 /etc/loom-ssh/id_ed25519 /root/.ssh/id_ed25519
  install -m 0600 /etc/loom-ssh/authorized_keys /root/.ssh/authorized_keys
  /usr/sbin/sshd -e
fi

if [ "$index" != 0 ]; then
  # A worker: pod 0's mpirun starts this host's process over SSH; wait until it is done.
  echo "host $index of $hosts: waiting for the launcher"
  while [ ! -e "$done_file" ]; do sleep 1; done
  exit 0
fi

list=""
for ((i = 0; i < hosts; i++)); do
  list+="${list:+,}$(host $i)"
  # Until the pod's DNS name resolves and its SSH answers (pods start in any order).
  if [ "${LOOM_START_SSHD:-1}" = 1 ]; then
    for ((try = 0; try < 300; try++)); do
      $rsh "$(host $i)" true 2>/dev/null && break
      sleep 1
    done
  fi
done
echo "launcher: $hosts hosts ($list), $devices devices each"
# Loom's settings travel to every host's process.
exports=()
for name in $(compgen -e | grep '^LOOM_' || true); do exports+=(-x "$name"); done
status=0
# rtc_hwloc_vmhole=none: mpirun does not map its hardware topology into shared memory at a
# guessed hole in the address space; inside containers that write crashed mpirun now and then
# (a segfault in hwloc_shmem_topology_write). Each process reads the topology itself instead.
mpirun --allow-run-as-root --host "$list" -np "$hosts" --map-by node \
  --mca plm_rsh_agent "$rsh" --mca rtc_hwloc_vmhole none "${exports[@]}" \
  "$train" "$root/$LOOM_CONFIG" --set "mesh.shape=[$((hosts * devices))]" \
  --set "checkpoint.enabled=${LOOM_CHECKPOINTS:-false}" ${restart[@]+"${restart[@]}"} "$@" \
  || status=$?
for ((i = 1; i < hosts; i++)); do
  $rsh "$(host $i)" touch "$done_file" || true
done
exit $status
