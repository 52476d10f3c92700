#!/usr/bin/env bats
# The built policy under Kubewarden's own CLI, as Kubewarden policies test themselves:
#   kwctl run --request-path <review> --settings-json <settings> <module>
# Needs kwctl on PATH (not a crate: CI relies on the two waPC runs, podplan's host and the
# wasmtime-provider cross-check); without it every test is skipped with "kwctl not found".
# Run from the repository root after scripts/build-wasm:  bats wasm/kubewarden/e2e.bats

setup() {
  if ! command -v kwctl >/dev/null 2>&1; then
    skip "kwctl not found"
  fi
  root="$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)"
  policy="$root/wasm/pkg/kubewarden/podplan_kubewarden.wasm"
  data="$root/test_data/admission"
  [ -f "$policy" ] || { echo "$policy is missing: run scripts/build-wasm" >&2; return 1; }
}

kw() { # review-case settings-json
  kwctl run --request-path "$data/$1.review.json" --settings-json "$2" "$policy"
}

@test "accepts a Deployment the kubelet will run" {
  run kw deployment-accepted '{}'
  [ "$status" -eq 0 ]
  [ $(expr "$output" : '.*"allowed":true.*') -ne 0 ]
}

@test "rejects runAsNonRoot with runAsUser 0, naming the rule and the path" {
  run kw pod-rejected-nonroot '{}'
  [ "$status" -eq 0 ]
  [ $(expr "$output" : '.*"allowed":false.*') -ne 0 ]
  [ $(expr "$output" : '.*config-error at spec.containers\[0\].*') -ne 0 ]
}

@test "rejects a workload's template (CronJob, Localhost seccomp without a profile)" {
  run kw cronjob-rejected-seccomp '{}'
  [ "$status" -eq 0 ]
  [ $(expr "$output" : '.*"allowed":false.*') -ne 0 ]
  [ $(expr "$output" : '.*spec.jobTemplate.spec.template.spec.*') -ne 0 ]
}

@test "warn mode accepts with warnings" {
  run kw pod-warn-mode "$(cat "$data/pod-warn-mode.settings.json")"
  [ "$status" -eq 0 ]
  [ $(expr "$output" : '.*"allowed":true.*') -ne 0 ]
  [ $(expr "$output" : '.*"warnings".*config-error.*') -ne 0 ]
}

@test "settings can turn a warning into a denial" {
  run kw pod-probe-denied-by-settings "$(cat "$data/pod-probe-denied-by-settings.settings.json")"
  [ "$status" -eq 0 ]
  [ $(expr "$output" : '.*"allowed":false.*') -ne 0 ]
  [ $(expr "$output" : '.*probe-ends-pod.*') -ne 0 ]
}

@test "refuses unknown rules in the settings" {
  run kw deployment-accepted "$(cat "$data/bad-settings-unknown-rule.settings.json")"
  [ "$status" -ne 0 ]
}

@test "refuses unknown actions in the settings" {
  run kw deployment-accepted "$(cat "$data/bad-settings-unknown-action.settings.json")"
  [ "$status" -ne 0 ]
}
