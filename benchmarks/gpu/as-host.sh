#!/usr/bin/env bash
# Runs a command as if its mpirun rank were alone on a host of its own, on the one GPU of the hosts lent now:
# NCCL_HOSTID makes NCCL take each process for another host (so two ranks may share GPU 0, over NCCL's network
# path: sockets here), JCOLL_DEVICE / BW_DEVICE put every rank on GPU 0. With AS_HOST_JCOLL=1, jcoll counts hosts
# the same way (JCOLL_HOST_ID); leave it off for jcoll perf under mpirun, whose local ranks then stay mpirun's.
# HOST<R>_ENV (e.g. HOST2_ENV="NCCL_SOCKET_IFNAME=nosuch0") adds settings to rank R only: a node set up wrong.
rank=${OMPI_COMM_WORLD_RANK:?run under mpirun}
export NCCL_HOSTID="jcoll-host-$rank" JCOLL_DEVICE=0 BW_DEVICE=0
[[ ${AS_HOST_JCOLL:-0} == 1 ]] && export JCOLL_HOST_ID="host-$rank"
extra="HOST${rank}_ENV"
[[ -n ${!extra:-} ]] && export ${!extra}
exec "$@"
