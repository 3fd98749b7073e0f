#!/usr/bin/env bash
# Writes the fixture machines the probe tests read: trees laid out like / on
# real nodes, following the sysfs layout of the Linux kernel's
# Documentation/ABI/stable/sysfs-class-infiniband and sysfs-class-net, the
# strings drivers/infiniband/core/sysfs.c prints ("4: ACTIVE", "5: LinkUp",
# "400 Gb/sec (4X NDR)", "RoCE v2"), rdma-core's GID table conventions, and the
# NVIDIA driver's /proc/driver/nvidia files. As in sysfs, each device lives at
# its place in the PCI tree under /sys/devices and /sys/class and /sys/bus hold
# relative links to it, so the probe reads PCI topology the way it does on a
# real machine. Rerun after changing it: bash make-machines.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

R=""   # the machine being written

link() { # link TARGET_ABS_UNDER_ROOT LINK_ABS_UNDER_ROOT: a relative link, as sysfs has
  mkdir -p "$(dirname "$R$2")"
  ln -sfn "$(realpath -m --relative-to="$(dirname "$R$2")" "$R$1")" "$R$2"
}
put() { mkdir -p "$(dirname "$R$1")"; printf '%s\n' "$2" > "$R$1"; }

pci() { # pci PATH NUMA: a PCI function at PATH under /sys/devices
  local bdf="${1##*/}"
  put "/sys/devices/$1/numa_node" "$2"
  link "/sys/devices/$1" "/sys/bus/pci/devices/$bdf"
}
adapter() { # adapter NAME PCIPATH HCA_TYPE FW
  local d="/sys/devices/$2/infiniband/$1"
  put "$d/node_type" "1: CA"; put "$d/hca_type" "$3"; put "$d/fw_ver" "$4"
  link "/sys/devices/$2" "$d/device"
  link "$d" "/sys/class/infiniband/$1"
}
port() { # port NAME N STATE PHYS LINK_LAYER RATE
  local d; d="$(readlink -f "$R/sys/class/infiniband/$1")/ports/$2"
  mkdir -p "$d"
  printf '%s\n' "$3" > "$d/state"; printf '%s\n' "$4" > "$d/phys_state"
  printf '%s\n' "$5" > "$d/link_layer"; printf '%s\n' "$6" > "$d/rate"
  mkdir -p "$d/gids" "$d/gid_attrs/types" "$d/gid_attrs/ndevs"
}
gid() { # gid NAME PORT INDEX GID TYPE NDEV: one populated GID slot
  local d; d="$(readlink -f "$R/sys/class/infiniband/$1")/ports/$2"
  printf '%s\n' "$4" > "$d/gids/$3"; printf '%s\n' "$5" > "$d/gid_attrs/types/$3"
  printf '%s\n' "$6" > "$d/gid_attrs/ndevs/$3"
}
netif() { # netif NAME OPERSTATE MTU SPEED TYPE [PCIPATH]; SPEED "-" when the file cannot be read
  local d
  if [[ -n "${6:-}" ]]; then d="/sys/devices/$6/net/$1"; link "/sys/devices/$6" "$d/device"
  else d="/sys/devices/virtual/net/$1"; fi
  put "$d/operstate" "$2"; put "$d/mtu" "$3"; put "$d/type" "$5"
  [[ "$4" != "-" ]] && put "$d/speed" "$4"
  link "$d" "/sys/class/net/$1"
}
driver() { put /proc/driver/nvidia/version "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  $1  Release Build  (dvs-builder@U22-I3-AF03-09-1)  Tue Jan 14 09:10:46 UTC 2025
GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)"; }
gpu() { # gpu BDF MODEL MINOR PCIPATH NUMA
  pci "$4" "$5"
  put "/proc/driver/nvidia/gpus/$1/information" "Model: 		 $2
IRQ:   		 0
GPU UUID: 	 GPU-5b1f0c3e-$(printf '%04d' "$3")-4d2a-9e61-3c7f2a1b8d90
Video BIOS: 	 96.00.99.00.01
Bus Type: 	 PCIe
DMA Size: 	 52 bits
DMA Mask: 	 0xfffffffffffff
Bus Location: 	 $1
Device Minor: 	 $3
GPU Firmware: 	 570.86.15
GPU Excluded:	 No"
}
peermem() {
  put /sys/module/nvidia_peermem/initstate live
  put /sys/module/nvidia_peermem/refcnt 0
  put /proc/modules "nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)
nvidia_uvm 4956160 0 - Live 0x0000000000000000 (OE)
nvidia 11440128 3 nvidia_peermem,nvidia_uvm, Live 0x0000000000000000 (OE)
ib_core 491520 9 nvidia_peermem,rdma_cm,ib_ipoib,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm, Live 0x0000000000000000"
}
no_peermem() {
  put /proc/modules "nvidia_uvm 4956160 0 - Live 0x0000000000000000 (OE)
nvidia 11440128 1 nvidia_uvm, Live 0x0000000000000000 (OE)
ib_core 491520 8 rdma_cm,ib_ipoib,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm, Live 0x0000000000000000"
}
routes() { # routes "IFACE DEST GATEWAY FLAGS METRIC MASK" ...: /proc/net/route, hex in little-endian
  local f="Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT"
  local r
  for r in "$@"; do set -- $r; f="$f
$1	$2	$3	$4	0	0	$5	$6	0	0	0"; done
  put /proc/net/route "$f"
}
roce_gids() { # roce_gids NAME PORT NDEV IPV4_HEX_GROUPS (such as 0a14:000b): the four entries the kernel creates
  gid "$1" "$2" 0 "fe80:0000:0000:0000:0a88:66ff:fe2c:91f0" "IB/RoCE v1" "$3"
  gid "$1" "$2" 1 "fe80:0000:0000:0000:0a88:66ff:fe2c:91f0" "RoCE v2" "$3"
  gid "$1" "$2" 2 "0000:0000:0000:0000:0000:ffff:$4" "IB/RoCE v1" "$3"
  gid "$1" "$2" 3 "0000:0000:0000:0000:0000:ffff:$4" "RoCE v2" "$3"
}

limits() { # limits MEMLOCK_SOFT MEMLOCK_HARD: /proc/self/limits as the kernel prints it
  put /proc/self/limits "$(printf '%-26s%-21s%-21s%-10s\n' "Limit" "Soft Limit" "Hard Limit" "Units" \
    "Max cpu time" unlimited unlimited seconds "Max open files" 1048576 1048576 files \
    "Max locked memory" "$1" "$2" bytes "Max address space" unlimited unlimited bytes)"
}
sockets() { # sockets RMEM_MAX WMEM_MAX TCP_RMEM_MAX TCP_WMEM_MAX
  put /proc/sys/net/core/rmem_max "$1"; put /proc/sys/net/core/wmem_max "$2"
  put /proc/sys/net/ipv4/tcp_rmem "4096	131072	$3"; put /proc/sys/net/ipv4/tcp_wmem "4096	16384	$4"
  congestion cubic
}
congestion() { put /proc/sys/net/ipv4/tcp_congestion_control "$1"; } # the kernel's own default is cubic
kernel() { put /proc/sys/kernel/osrelease "$1"; }
verbs() { # verbs PROVIDER...: rdma-core's libibverbs and its provider plugins (empty files stand for them)
  put /usr/lib/x86_64-linux-gnu/libibverbs.so.1 ""
  local p; for p in "$@"; do put "/usr/lib/x86_64-linux-gnu/libibverbs/lib$p-rdmav34.so" ""; done
}
tuned() { limits unlimited unlimited; sockets 67108864 67108864 67108864 67108864; }

# --- an 8-GPU node with 8 InfiniBand adapters (DGX H100 style): each GPU shares a PCIe switch with one adapter
R="$here/dgx-h100-8ib"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; peermem; tuned; kernel 5.15.0-131-generic; verbs mlx5
buses=(18 2a 3a 5d 9a ab ba db)
for i in 0 1 2 3 4 5 6 7; do
  b=${buses[$i]}; numa=$((i / 4)); hb="pci0000:$b"
  sw="$hb/0000:$b:01.0/0000:$(printf '%02x' $((0x$b + 1))):00.0"
  down=$(printf '%02x' $((0x$b + 2)))
  gpu "0000:$(printf '%02x' $((0x$b + 3))):00.0" "NVIDIA H100 80GB HBM3" "$i" \
      "$sw/0000:$down:00.0/0000:$(printf '%02x' $((0x$b + 3))):00.0" "$numa"
  nic="$sw/0000:$down:01.0/0000:$(printf '%02x' $((0x$b + 4))):00.0"
  pci "$nic" "$numa"
  adapter "mlx5_$i" "$nic" MT4129 28.39.1002
  port "mlx5_$i" 1 "4: ACTIVE" "5: LinkUp" InfiniBand "400 Gb/sec (4X NDR)"
  gid "mlx5_$i" 1 0 "fe80:0000:0000:0000:a088:c203:00$(printf '%02x' $i):4e10" "IB/RoCE v1" ""
  rm -f "$(readlink -f "$R/sys/class/infiniband/mlx5_$i")/ports/1/gid_attrs/ndevs/0" # IB GIDs have no netdev
done
pci "pci0000:00/0000:00:1c.0/0000:01:00.0" 0
netif lo unknown 65536 - 772
netif eno1 up 1500 25000 1 "pci0000:00/0000:00:1c.0/0000:01:00.0"
routes "eno1 00000000 01000A0A 0003 100 00000000" "eno1 00000A0A 00000000 0001 100 0000FFFF"

# --- a RoCE node: ConnectX-6 Dx at MTU 9000; GPUs 0-1 share its switch, GPUs 2-3 hang off another root port
R="$here/roce-cx6-mtu9000"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; peermem; tuned; kernel 6.8.0-49-generic; verbs mlx5
gpu 0000:17:00.0 "NVIDIA A100-SXM4-80GB" 0 "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0" 0
gpu 0000:18:00.0 "NVIDIA A100-SXM4-80GB" 1 "pci0000:15/0000:15:01.0/0000:16:01.0/0000:18:00.0" 0
gpu 0000:27:00.0 "NVIDIA A100-SXM4-80GB" 2 "pci0000:15/0000:15:03.0/0000:26:00.0/0000:27:00.0" 0
gpu 0000:28:00.0 "NVIDIA A100-SXM4-80GB" 3 "pci0000:15/0000:15:03.0/0000:26:01.0/0000:28:00.0" 0
nic="pci0000:15/0000:15:01.0/0000:16:02.0/0000:19:00.0"
pci "$nic" 0
adapter mlx5_0 "$nic" MT4125 22.41.1000
port mlx5_0 1 "4: ACTIVE" "5: LinkUp" Ethernet "100 Gb/sec (4X EDR)"
roce_gids mlx5_0 1 ens1f0np0 0a14:000b
netif lo unknown 65536 - 772
netif eno1 up 1500 1000 1 "pci0000:00/0000:00:1c.0/0000:01:00.0"
pci "pci0000:00/0000:00:1c.0/0000:01:00.0" 0
netif ens1f0np0 up 9000 100000 1 "$nic"
routes "eno1 00000000 0101A8C0 0003 100 00000000" "eno1 0001A8C0 00000000 0001 100 00FFFFFF" \
       "ens1f0np0 0000140A 00000000 0001 0 00FFFFFF"

# --- the same kind of RoCE node set up wrong: MTU 1500 and no peer-memory module
R="$here/roce-mtu1500-nopeermem"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; no_peermem; tuned; kernel 5.4.0-216-generic; verbs mlx5
gpu 0000:17:00.0 "NVIDIA L40S" 0 "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0" 0
gpu 0000:18:00.0 "NVIDIA L40S" 1 "pci0000:15/0000:15:01.0/0000:16:01.0/0000:18:00.0" 0
nic="pci0000:15/0000:15:01.0/0000:16:02.0/0000:19:00.0"
pci "$nic" 0
adapter mlx5_0 "$nic" MT4125 22.41.1000
port mlx5_0 1 "4: ACTIVE" "5: LinkUp" Ethernet "100 Gb/sec (4X EDR)"
roce_gids mlx5_0 1 ens1f0np0 0a14:000c
netif lo unknown 65536 - 772
netif ens1f0np0 up 1500 100000 1 "$nic"
routes "ens1f0np0 00000000 0100140A 0003 0 00000000" "ens1f0np0 0000140A 00000000 0001 0 00FFFFFF"

# --- an InfiniBand node whose only adapter port is DOWN (cable out: the port polls for a peer)
R="$here/ib-port-down"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; peermem; tuned; kernel 5.15.0-131-generic; verbs mlx5
gpu 0000:17:00.0 "NVIDIA H100 PCIe" 0 "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0" 0
nic="pci0000:15/0000:15:01.0/0000:16:01.0/0000:18:00.0"
pci "$nic" 0
adapter mlx5_0 "$nic" MT4123 20.39.1002
port mlx5_0 1 "1: DOWN" "2: Polling" InfiniBand "10 Gb/sec (4X SDR)"
netif lo unknown 65536 - 772
netif eth0 up 1500 10000 1 "pci0000:00/0000:00:03.0/0000:01:00.0"
pci "pci0000:00/0000:00:03.0/0000:01:00.0" 0
routes "eth0 00000000 0100000A 0003 100 00000000" "eth0 0000000A 00000000 0001 100 00FFFFFF"

# --- a cloud VM with Ethernet only (one GPU, ENA-style interface with MTU 9001 and no speed file)
R="$here/cloud-vm-ethernet"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; tuned; kernel 6.8.0-1021-aws
gpu 0000:00:1e.0 "NVIDIA A10G" 0 "pci0000:00/0000:00:1e.0" -1
netif lo unknown 65536 - 772
netif ens5 up 9001 - 1 "pci0000:00/0000:00:05.0"
pci "pci0000:00/0000:00:05.0" -1
netif docker0 down 1500 - 1
routes "ens5 00000000 01201FAC 0003 100 00000000" "ens5 00201FAC 00000000 0001 100 00F0FFFF"
# --- a RoCE node without nvidia_peermem where DMA-BUF serves (kernel 6.8, open modules), set up with the
#     distribution's defaults: locked memory 64 KiB, and rdma-core's libibverbs without the mlx5 provider
R="$here/roce-dmabuf-defaults"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; no_peermem; limits 65536 65536; sockets 212992 212992 6291456 4194304
kernel 6.8.0-49-generic; verbs
gpu 0000:17:00.0 "NVIDIA H100 PCIe" 0 "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0" 0
nic="pci0000:15/0000:15:01.0/0000:16:01.0/0000:18:00.0"
pci "$nic" 0
adapter mlx5_0 "$nic" MT4129 28.39.1002
port mlx5_0 1 "4: ACTIVE" "5: LinkUp" Ethernet "200 Gb/sec (4X HDR)"
roce_gids mlx5_0 1 ens2np0 0a1e:0005
netif lo unknown 65536 - 772
netif ens2np0 up 9000 200000 1 "$nic"
routes "ens2np0 00000000 01001E0A 0003 0 00000000" "ens2np0 00001E0A 00000000 0001 0 00FFFFFF"

# --- an Ethernet-only node as installed: socket buffer limits at the kernel's defaults
R="$here/ethernet-untuned"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; limits 8388608 8388608; sockets 212992 212992 6291456 4194304; kernel 6.1.0-28-amd64
gpu 0000:3b:00.0 "NVIDIA L4" 0 "pci0000:3a/0000:3a:00.0/0000:3b:00.0" 0
netif lo unknown 65536 - 772
netif eno1 up 1500 25000 1 "pci0000:00/0000:00:1c.0/0000:01:00.0"
pci "pci0000:00/0000:00:1c.0/0000:01:00.0" 0
routes "eno1 00000000 0100A8C0 0003 100 00000000" "eno1 0000A8C0 00000000 0001 100 00FFFFFF"

# --- an Ethernet-only cloud node whose image sets TCP's congestion control to BBR (buffers tuned)
R="$here/ethernet-bbr"; rm -rf "$R"; mkdir -p "$R"
driver 570.86.15; tuned; congestion bbr; kernel 6.6.56+
gpu 0000:00:03.0 "NVIDIA L4" 0 "pci0000:00/0000:00:03.0" -1
netif lo unknown 65536 - 772
netif ens4 up 1460 - 1 "pci0000:00/0000:00:04.0"
pci "pci0000:00/0000:00:04.0" -1
routes "ens4 00000000 0100800A 0003 100 00000000" "ens4 0000800A 00000000 0001 100 00FFFFFF"
echo "fixture machines written under $here"
