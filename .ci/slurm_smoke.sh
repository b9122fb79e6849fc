#!/usr/bin/env bash
# Run the smoke workflow on a real single-node SLURM cluster on localhost and check that it gives
# the same numbers as a local run (seeds come from each run's identity, so the executor cannot
# change them).
#
#   .ci/slurm_smoke.sh LOCAL_RUN_DIR [WORK_DIR]
#
# LOCAL_RUN_DIR is a finished local smoke run's --directory. Needs root (apt-get, daemons).
# If a SLURM cluster already answers on this machine (a node idle or mixed), the run goes to it and
# the script starts and stops nothing. Otherwise it installs slurm-wlm and munge if missing, moves an
# existing /etc/slurm/slurm.conf aside, writes its own, starts munged (unless running), slurmctld
# and slurmd, and on exit, also on failure, stops the daemons it started by their PID files and puts
# the original configuration back. It then runs the smoke config with --executor slurm in
# WORK_DIR/run (default WORK_DIR: a new temporary directory) and compares. The smoke config's
# audits, a few seconds each, share one allocation (a group job; --cores is the node's, so that
# Snakemake stacks them rather than asking for the sum of their threads); the light rules (tables, figures,
# selection, data) run on this host (`localrule: True`). Uses the snakemake on
# PATH: the job scripts re-run snakemake inside the allocation, so the virtual environment must be
# on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOCAL_RUN="$(cd "$1" && pwd)"
WORK="${2:-$(mktemp -d /tmp/privcd-slurm.XXXXXX)}"
MIRROR="${PRIVCD_DATA_MIRROR:-$(cd "$ROOT/.." && pwd)/shared/datasets}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
STATE="$WORK/slurm"
# The job steps (srun inside each allocation) read the default location, whatever $SLURM_CONF says.
CONF=/etc/slurm/slurm.conf
SMOKE_MINUTES=${SLURM_SMOKE_MINUTES:-30}  # a job that can never start must not eat CI's budget

cluster_answers() {  # a node idle or mixed (not "idle*", not responding)
    local states
    command -v sinfo >/dev/null && states="$(timeout 10 sinfo -h -N -o "%t" 2>/dev/null)" &&
        grep -qE "^(idle|mix)$" <<<"$states"
}
daemons_run() { pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; }
wait_for_cluster() {  # a cluster that is starting up gets a minute to answer
    for _ in $(seq 60); do
        if cluster_answers; then return 0; fi
        sleep 1
    done
    return 1
}

if daemons_run; then wait_for_cluster || true; fi
if cluster_answers; then
    echo "a SLURM cluster already answers here: using it, starting and stopping nothing"
else
    if daemons_run; then
        echo "slurmctld or slurmd runs here but no node is idle or mixed: not starting a second cluster" >&2
        sinfo -N >&2 || true
        exit 1
    fi
    if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
    fi

    ORIGINAL_CONF="$STATE/slurm.conf.original"
    PIDFILES=()
    cleanup() {
        local status=$?
        local pids=()
        for pidfile in "${PIDFILES[@]}"; do
            if [[ -s "$pidfile" ]]; then
                pids+=("$(cat "$pidfile")")
                kill "${pids[-1]}" 2>/dev/null || true
            fi
        done
        for pid in "${pids[@]}"; do  # wait (30 s at most) until each has exited (a zombie has)
            for _ in $(seq 300); do
                [[ "$(ps -o stat= -p "$pid" 2>/dev/null)" =~ ^[^Z] ]] || break
                sleep 0.1
            done
        done
        if [[ -e "$ORIGINAL_CONF" ]]; then
            mv -f "$ORIGINAL_CONF" "$CONF"
        else
            rm -f "$CONF"
        fi
        if [[ $status -ne 0 ]]; then
            echo "SLURM smoke run failed (exit $status); daemon logs:" >&2
            tail -n 20 "$STATE"/log/*.log >&2 || true
        fi
        exit "$status"
    }
    trap cleanup EXIT

    mkdir -p "$STATE/ctld" "$STATE/d" "$STATE/log" /etc/slurm
    if [[ -e $CONF ]]; then
        echo "$CONF exists but no cluster answers: moved aside while this run lasts, restored after"
        mv "$CONF" "$ORIGINAL_CONF"
    fi
    cat >"$CONF" <<CONF
ClusterName=privcd-ci
SlurmctldHost=localhost
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(( $(free -m | awk '/^Mem:/ {print $2}') * 9 / 10 )) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

    MUNGE_PID=/run/munge/munged.pid
    if ! { [[ -s $MUNGE_PID ]] && kill -0 "$(cat $MUNGE_PID)" 2>/dev/null; }; then
        mkdir -p /run/munge /var/log/munge /var/lib/munge
        chown munge:munge /run/munge /var/log/munge /var/lib/munge
        runuser -u munge -- /usr/sbin/munged
        PIDFILES+=("$MUNGE_PID")
    fi
    /usr/sbin/slurmctld
    PIDFILES+=("$STATE/slurmctld.pid")
    /usr/sbin/slurmd -N localhost  # the hostname is not localhost: name the node
    PIDFILES+=("$STATE/slurmd.pid")
    wait_for_cluster || true
fi
sinfo -N

start=$(date +%s)
timeout "${SMOKE_MINUTES}m" snakemake --executor slurm --workflow-profile "$ROOT/workflow/profiles/slurm" \
    --snakefile "$ROOT/Snakefile" --directory "$WORK/run" \
    --configfile "$ROOT/config/smoke.yaml" --replace-workflow-config \
    --config data_mirror="$MIRROR" --jobs 4 \
    --cores "$(nproc)" --groups audit_run=audit --group-components audit=1000
echo "SLURM smoke run: $(( $(date +%s) - start )) s"

python "$ROOT/.ci/compare_runs.py" "$LOCAL_RUN" "$WORK/run"
