#!/usr/bin/env bash
# Renders job.yaml from job.yaml.template and values.env (or the file given as $1), and
# ssh-secret.yaml: the SSH key the pods share, so that pod 0 can launch the others.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
values=${1:-$here/values.env}
out=${LOOM_K8S_OUT:-$here}

rendered=$(cat "$here/job.yaml.template")
while IFS='=' read -r name value; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  declare "$name=$value"
  rendered=${rendered//"{{$name}}"/$value}
done < "$values"
if grep -o '{{[A-Z_]*}}' <<<"$rendered" | sort -u | grep . >&2; then
  echo "prepare.sh: $values sets none of the names above" >&2
  exit 1
fi
printf '%s\n' "$rendered" > "$out/job.yaml"

key=$(mktemp -d)
trap 'rm -rf "$key"' EXIT
ssh-keygen -q -t ed25519 -N '' -C "$JOB_NAME" -f "$key/id_ed25519"
{
  echo "apiVersion: v1"
  echo "kind: Secret"
  echo "metadata:"
  echo "  name: $JOB_NAME-ssh"
  echo "type: Opaque"
  echo "data:"
  echo "  id_ed25519: $(base64 -w0 < "$key/id_ed25519")"
  echo "  authorized_keys: $(base64 -w0 < "$key/id_ed25519.pub")"
} > "$out/ssh-secret.yaml"
echo "wrote $out/job.yaml and $out/ssh-secret.yaml ($HOSTS hosts x $DEVICES_PER_HOST devices)"
