#!/usr/bin/env bash
# The script steps of action.yml, runnable outside GitHub: `install` puts pouchproof on PATH, `run`
# runs the suite and publishes what it found to $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT (files;
# both default to nowhere). `run` exits 0 whatever the verdict, so the reports are still uploaded:
# the action's last step fails the job from the `exit-code` output. Only a configuration the step
# refuses before running anything (check_target_inputs) fails the step itself, with exit code 4.
# `verdict` names the exit code's one meaning (src/check/run/exit-code.ts), for a job to branch on.
# Inputs come as environment variables (INPUT_*), never interpolated into the script, so a secret
# profile is never part of a command line or the log.
set -euo pipefail

out() { printf '%s=%s\n' "$1" "$2" >> "${GITHUB_OUTPUT:-/dev/null}"; }

install() {
  if [[ -n "${INPUT_VERSION:-}" ]]; then
    npm install --global --no-audit --no-fund "pouchproof@${INPUT_VERSION}"
  else
    # The action's own checkout: packed (its prepack builds dist/) and installed like the published package.
    local here pack
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    pack="$(mktemp -d)"
    (cd "$here" && npm ci --no-audit --no-fund && npm pack --pack-destination "$pack" >/dev/null)
    npm install --global --no-audit --no-fund "$pack"/pouchproof-*.tgz
  fi
  pouchproof --help >/dev/null
}

# pouchproof's exit code for bad configuration (a bad flag or profile): the same for the action's own inputs.
CONFIG_ERROR=4

# The one word for each exit code, as src/check/run/exit-code.ts names them.
verdict_of() {
  case "$1" in
    0) echo passed ;;
    1) echo failed ;;
    2) echo inconclusive ;;
    3) echo unreachable ;;
    4) echo config-error ;;
    130) echo interrupted ;;
    *) echo inconclusive ;;
  esac
}

# Exactly one of profile, profile-json and target: with none, pouchproof would test its embedded
# reference and the job would go green whatever the service does (an empty secret in a pull request
# from a fork, a renamed secret), so the step refuses, naming the inputs. A reference run is
# `target: reference`, on purpose.
check_target_inputs() {
  local -a given=()
  [[ -n "${INPUT_PROFILE:-}" ]] && given+=(profile)
  [[ -n "${INPUT_PROFILE_JSON:-}" ]] && given+=(profile-json)
  [[ -n "${INPUT_TARGET:-}" ]] && given+=(target)
  local why=""
  if (( ${#given[@]} == 0 )); then
    why="the inputs profile, profile-json and target are all empty: give exactly one (is the secret that fills profile-json empty, as in a pull request from a fork, or renamed?); target: reference tests the embedded reference on purpose"
  elif (( ${#given[@]} > 1 )); then
    local list
    printf -v list '%s and ' "${given[@]}"
    local many=all
    (( ${#given[@]} == 2 )) && many=both
    why="the inputs ${list% and } are $many given: give exactly one of profile, profile-json and target"
  fi
  [[ -z "$why" ]] && return 0
  refuse "$why"
}

# The step fails before running anything, saying why in the log and the step summary.
refuse() {
  local why="$1"
  echo "pouchproof action: $why" >&2
  printf '## pouchproof: not run (bad configuration)\n\n%s\n' "$why" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
  out exit-code "$CONFIG_ERROR"
  out verdict "$(verdict_of "$CONFIG_ERROR")"
  out headline "not run: bad configuration"
  exit "$CONFIG_ERROR"
}

run() {
  check_target_inputs
  local report_dir="${INPUT_REPORT_DIR:-pouchproof-reports}"
  local -a cmd
  read -r -a cmd <<< "${POUCHPROOF_COMMAND:-pouchproof}"
  local -a args=(run --report-dir "$report_dir")
  secret_profile=""
  if [[ -n "${INPUT_PROFILE_JSON:-}" ]]; then
    secret_profile="$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/pouchproof-profile.XXXXXX")"
    chmod 600 "$secret_profile"
    trap 'rm -f "${secret_profile}"' EXIT
    printf '%s' "$INPUT_PROFILE_JSON" > "$secret_profile"
    args+=(--profile "$secret_profile")
  elif [[ -n "${INPUT_PROFILE:-}" ]]; then
    args+=(--profile "$INPUT_PROFILE")
  fi
  [[ -n "${INPUT_TARGET:-}" ]] && args+=(--target "$INPUT_TARGET")
  [[ -n "${INPUT_SEED:-}" ]] && args+=(--seed "$INPUT_SEED")
  [[ -n "${INPUT_ONLY:-}" ]] && args+=(--only "$INPUT_ONLY")
  [[ -n "${INPUT_EXCLUDE:-}" ]] && args+=(--exclude "$INPUT_EXCLUDE")
  [[ -n "${INPUT_MAX_FAILURES:-}" ]] && args+=(--max-failures "$INPUT_MAX_FAILURES")
  case "${INPUT_NO_SHRINK:-false}" in
    true) args+=(--no-shrink) ;;
    false | '') ;;
    *) refuse "the input no-shrink is \"${INPUT_NO_SHRINK}\": give true or false" ;;
  esac
  [[ -n "${INPUT_FAIL_ON:-}" ]] && args+=(--fail-on "$INPUT_FAIL_ON")
  [[ -n "${INPUT_MAX_DURATION:-}" ]] && args+=(--max-duration "$INPUT_MAX_DURATION")

  local code=0
  "${cmd[@]}" "${args[@]}" || code=$?
  out exit-code "$code"
  out verdict "$(verdict_of "$code")"

  local latest="$report_dir/latest" summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
  if [[ -f "$latest/summary.md" ]]; then
    local dir
    dir="$(cd "$latest" && pwd -P)"
    cat "$dir/summary.md" >> "$summary"
    out headline "$(head -n 1 "$dir/summary.md" | sed -e 's/^## pouchproof: //')"
    out report-dir "$dir"
    out junit "$dir/junit.xml"
  else
    # No report: pouchproof refused its input (exit 4) before running; its one-line reason is in the log.
    printf '## pouchproof: no report (exit code %s)\n\nSee the log of the pouchproof step for the reason.\n' "$code" >> "$summary"
    out headline "no report (exit code $code)"
  fi
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  *) echo "usage: $0 install|run" >&2; exit "$CONFIG_ERROR" ;;
esac
