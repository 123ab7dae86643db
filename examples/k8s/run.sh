#!/usr/bin/env bash
# Creates the SSH secret, the headless Service and the Indexed Job, then follows pod 0's log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$here/job.yaml" ] || "$here/prepare.sh"
kubectl apply -f "$here/ssh-secret.yaml" -f "$here/job.yaml"
name=$(sed -n 's/^  name: //p' "$here/job.yaml" | head -1)
launcher="job-name=$name,batch.kubernetes.io/job-completion-index=0"
kubectl wait --for=condition=Ready pod -l "$launcher" --timeout=600s
kubectl logs -f -l "$launcher"
