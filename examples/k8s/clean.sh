#!/usr/bin/env bash
# Deletes the Job (and its pods), the Service and the SSH secret.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kubectl delete --ignore-not-found -f "$here/job.yaml" -f "$here/ssh-secret.yaml"
