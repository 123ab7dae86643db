#!/usr/bin/env bash
# An ssh stand-in for running the k8s example's pods as local processes: runs the command
# here, whatever the host (ssh's options, then the host, then the command).
while [[ "${1:-}" == -* ]]; do
  case "$1" in -o | -i | -p | -l) shift ;; esac
  shift
done
shift # the host
exec /bin/bash -c "$*"
