#!/usr/bin/env bash
# A throwaway Slurm 22.05 cluster on this host, for the Slurm executor's tests (and for trying
# `--executor slurm` by hand): munge, MariaDB + slurmdbd (so `sacct` works), slurmctld and
# N slurmd compute nodes on loopback, each with 4 CPUs, 8000 MB and two fake GPUs (gres). Every
# file lives in <dir>; every daemon is started here and stopped by its pid file (no systemd).
# It installs nothing: the Debian packages are slurm-wlm slurm-client munge slurmdbd
# mariadb-server (scripts/setup.sh installs them). Run as root.
#
#   scripts/slurm-cluster.sh up <dir>            start it; prints `export SLURM_CONF=<dir>/slurm.conf`
#   scripts/slurm-cluster.sh down <dir>          stop every daemon it started (reverse order); keeps <dir>
#   scripts/slurm-cluster.sh status <dir>        sinfo, and which daemons live
#   scripts/slurm-cluster.sh kill-node <dir> n1  SIGKILL that node's slurmd (its running jobs keep running:
#                                                a node the controller loses, as tests need)
#   scripts/slurm-cluster.sh start-node <dir> n1 start it again and return it to service
#
# Settings (environment): SLURM_CLUSTER_NODES (default 3), SLURM_CLUSTER_PORT (first of 4 + N
# consecutive free TCP ports; default: the first free block from 16817). Facts behind the
# settings: /work/shared/docs/slurm-notes.md (several slurmd on one host need MULTIPLE_SLURMD,
# config_overrides, proctrack/linuxproc; fake GPUs are character devices with /dev/null's numbers).
set -euo pipefail

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
log() { echo "slurm-cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# -ge 2 ] || usage
cmd=$1
dir=$2
NODES=${SLURM_CLUSTER_NODES:-3}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Wait until `$2...` succeeds, for at most $1 tenths of a second.
wait_for() {
  local n=$1
  shift
  for ((i = 0; i < n; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

port_free() { ! ss -Htln "sport = :$1" | grep -q .; }

pick_ports() {
  local base=${SLURM_CLUSTER_PORT:-16817} want=$((4 + NODES))
  for ((try = 0; try < 50; try++)); do
    local ok=1
    for ((p = base; p < base + want; p++)); do port_free "$p" || { ok=0; break; }; done
    if [ "$ok" = 1 ]; then echo "$base"; return 0; fi
    [ -n "${SLURM_CLUSTER_PORT:-}" ] && die "ports $base..$((base + want - 1)) are not all free (SLURM_CLUSTER_PORT)"
    base=$((base + 100))
  done
  die "no block of $want free ports found"
}

node_names() { for ((i = 1; i <= NODES; i++)); do echo "n$i"; done; }

stop_pidfile() {
  local f=$1 name=$2
  if pid_alive "$f"; then
    local pid
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then log "$name (pid $pid) ignored SIGTERM for 10 s; SIGKILL"; kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$f"
}

start_slurmd() {
  local node=$1
  SLURM_CONF="$dir/slurm.conf" slurmd -N "$node" -f "$dir/slurm.conf"
  wait_for 100 test -s "$dir/run/slurmd-$node.pid" || die "slurmd $node did not start (see $dir/log/slurmd-$node.log)"
}

write_configs() {
  local base=$1 host short
  host=$(hostname)
  short=$(hostname -s)
  local ctld=$base dbd=$((base + 1)) db=$((base + 2)) first_node=$((base + 4))
  local last_node=$((first_node + NODES - 1))
  echo "$base" > "$dir/ports"
  cat > "$dir/slurm.conf" <<EOF
# Written by scripts/slurm-cluster.sh: a test cluster on one host ($NODES nodes on loopback).
ClusterName=cspipe
SlurmctldHost=$short(127.0.0.1)
SlurmctldPort=$ctld
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
GresTypes=gpu
ReturnToService=2
# A killed slurmd makes its node DOWN (and a --no-requeue job on it NODE_FAIL) within ~20 s.
SlurmdTimeout=10
MinJobAge=300
MailProg=/bin/true
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd
# With munge, the socket that clients use to reach slurmdbd (AuthInfo covers only the controller and nodes).
AccountingStoragePass=$dir/munge/munge.socket
AccountingStorageTRES=gres/gpu
SchedulerParameters=sched_min_interval=100000
NodeName=n[1-$NODES] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$first_node-$last_node] CPUs=4 RealMemory=8000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=n[1-$NODES] Default=YES MaxTime=INFINITE State=UP
EOF
  cat > "$dir/gres.conf" <<EOF
AutoDetect=off
NodeName=n[1-$NODES] Name=gpu File=$dir/dev/nvidia[0-1]
EOF
  cat > "$dir/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
DbdHost=$short
DbdAddr=127.0.0.1
DbdPort=$dbd
SlurmUser=root
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$dir/slurmdbd.conf"
}

start_munge() {
  mkdir -p "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chown -R munge:munge "$dir/munge"
  chmod 755 "$dir/munge"
  chmod 400 "$dir/munge/munge.key"
  runuser -u munge -- /usr/sbin/munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
  wait_for 50 test -S "$dir/munge/munge.socket" || die "munged did not start (see $dir/munge/munged.log)"
}

start_mariadb() {
  local port=$1
  mkdir -p "$dir/mysql"
  chown mysql:mysql "$dir/mysql"
  mariadb-install-db --no-defaults --datadir="$dir/mysql/data" --user=mysql --skip-test-db --auth-root-authentication-method=socket >"$dir/log/mariadb-install.log" 2>&1 ||
    die "mariadb-install-db failed (see $dir/log/mariadb-install.log)"
  mariadbd --no-defaults --datadir="$dir/mysql/data" --socket="$dir/mysql/mysql.sock" --port="$port" --bind-address=127.0.0.1 \
    --user=mysql --pid-file="$dir/mysql/mariadb.pid" --log-error="$dir/log/mariadb.log" --skip-log-bin --innodb-buffer-pool-size=32M \
    >/dev/null 2>&1 &
  wait_for 300 mariadb --no-defaults -S "$dir/mysql/mysql.sock" -u root -e "SELECT 1" || die "MariaDB did not start (see $dir/log/mariadb.log)"
  mariadb --no-defaults -S "$dir/mysql/mysql.sock" -u root -e \
    "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
}

up() {
  [ "$(id -u)" = 0 ] || die "run as root (the daemons run as root, munge and mysql)"
  for b in munged mariadbd mariadb-install-db slurmdbd slurmctld slurmd sinfo sacctmgr; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || die "$b is missing: apt-get install -y --no-install-recommends slurm-wlm slurm-client munge slurmdbd mariadb-server"
  done
  if [ -f "$dir/slurm.conf" ] && pid_alive "$dir/run/slurmctld.pid"; then die "a cluster is already up in $dir ('$0 down $dir' first)"; fi
  # <dir> is wiped: only an empty directory or an earlier cluster's is accepted.
  if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && ! grep -qs "Written by scripts/slurm-cluster.sh" "$dir/slurm.conf"; then
    die "$dir is not empty and holds no earlier test cluster: give a new or empty directory"
  fi
  rm -rf "$dir"
  mkdir -p "$dir"/{state,spool,run,log,dev}
  chmod 755 "$dir"
  dir=$(cd "$dir" && pwd)
  local t0 base
  t0=$(date +%s.%N)
  # A failed bring-up stops what it started.
  trap 'log "bring-up failed; stopping what started"; down >/dev/null 2>&1 || true' EXIT
  base=$(pick_ports)
  write_configs "$base"
  export SLURM_CONF="$dir/slurm.conf"
  for g in 0 1; do mknod "$dir/dev/nvidia$g" c 1 3; done
  start_munge
  start_mariadb $((base + 2))
  SLURM_CONF="$dir/slurm.conf" slurmdbd
  wait_for 100 test -s "$dir/run/slurmdbd.pid" || die "slurmdbd did not start (see $dir/log/slurmdbd.log)"
  wait_for 100 sacctmgr -n list cluster || die "slurmdbd does not answer (see $dir/log/slurmdbd.log)"
  sacctmgr -i add cluster cspipe >/dev/null
  SLURM_CONF="$dir/slurm.conf" slurmctld -f "$dir/slurm.conf"
  wait_for 100 scontrol ping || die "slurmctld did not start (see $dir/log/slurmctld.log)"
  for n in $(node_names); do start_slurmd "$n"; done
  # Every node idle (not down, not unknown) before anyone submits.
  wait_for 300 bash -c "[ \"\$(SLURM_CONF='$dir/slurm.conf' sinfo -h -N -o '%t' | grep -cx idle)\" = $NODES ]" ||
    die "nodes are not idle after 30 s: $(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%N %t' | tr '\n' ' ')"
  trap - EXIT
  log "up in $(echo "$(date +%s.%N) - $t0" | bc | sed 's/^\./0./' | cut -c1-4) s: $NODES nodes, ports $base.., $dir"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

down() {
  [ -d "$dir" ] || die "$dir does not exist"
  # Jobs first, so no slurmstepd outlives its slurmd.
  if pid_alive "$dir/run/slurmctld.pid"; then SLURM_CONF="$dir/slurm.conf" scancel --full --quiet --user=root 2>/dev/null || true; fi
  # The nodes at once (each takes ~2 s to exit); then the daemons they report to, in order.
  for n in $(node_names); do stop_pidfile "$dir/run/slurmd-$n.pid" "slurmd $n" & done
  wait
  stop_pidfile "$dir/run/slurmctld.pid" slurmctld
  stop_pidfile "$dir/run/slurmdbd.pid" slurmdbd
  stop_pidfile "$dir/mysql/mariadb.pid" mariadbd
  stop_pidfile "$dir/munge/munged.pid" munged
  # Job scripts the killed slurmds left running (kill-node) belong to this cluster: their
  # slurmstepd processes name its spool directory.
  local left
  left=$(pgrep -f "slurmstepd.*" 2>/dev/null | while read -r p; do grep -qs "$dir" "/proc/$p/cmdline" /proc/"$p"/environ && echo "$p"; done || true)
  for p in $left; do kill -9 "$p" 2>/dev/null || true; done
  log "down: $dir"
}

status() {
  export SLURM_CONF="$dir/slurm.conf"
  for f in munge/munged.pid mysql/mariadb.pid run/slurmdbd.pid run/slurmctld.pid; do
    echo "$(basename "$f" .pid): $(pid_alive "$dir/$f" && echo "up (pid $(cat "$dir/$f"))" || echo down)"
  done
  for n in $(node_names); do echo "slurmd $n: $(pid_alive "$dir/run/slurmd-$n.pid" && echo "up (pid $(cat "$dir/run/slurmd-$n.pid"))" || echo down)"; done
  sinfo -N -o '%N %P %t %c %m %G'
}

kill_node() {
  local node=$1 f="$dir/run/slurmd-$1.pid"
  pid_alive "$f" || die "slurmd $node is not running"
  kill -9 "$(cat "$f")"
  rm -f "$f"
  log "killed slurmd $node"
}

start_node() {
  local node=$1
  pid_alive "$dir/run/slurmd-$node.pid" && die "slurmd $node is already running"
  start_slurmd "$node"
  SLURM_CONF="$dir/slurm.conf" scontrol update NodeName="$node" State=RESUME 2>/dev/null || true
  wait_for 300 bash -c "SLURM_CONF='$dir/slurm.conf' sinfo -h -n $node -o '%t' | grep -qx idle" || log "warning: $node is not idle yet"
  log "started slurmd $node"
}

case $cmd in
  up) up ;;
  down) down ;;
  status) status ;;
  kill-node) [ $# -eq 3 ] || usage; kill_node "$3" ;;
  start-node) [ $# -eq 3 ] || usage; start_node "$3" ;;
  *) usage ;;
esac
