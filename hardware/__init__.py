"""Hardware facts, in one place: GPU kinds with their peaks and memory (as the datasheet states it and as the
device reports it), scale-up links (NVLink, Infinity Fabric, HCCS, UB), the intra-node kinds, the
inter-node fabrics with what they achieve of their line rate, NIC line rates and GPU name aliases.

Pure Python (no Django): the sizing engine, the pitfall rules, the evidence parsers and comparison, the
catalog's GPU table and the compare pages all read these numbers from here, each with its source.
"""

from __future__ import annotations

from .gpus import GPU, GPUS, MIB
from .links import (
    INTRA_NODE_KINDS,
    INTRA_NODE_NAMES,
    MESH_NAMES_BY_VENDOR,
    NVLINK_BRIDGE_GBYTES_PER_S,
    NVLINK_MESH_BUSBW_EFFICIENCY,
    NVSWITCH_BUSBW_EFFICIENCY,
    PCIE_BUSBW_EFFICIENCY,
    PCIE_GEN5_PRACTICAL_GBYTES_PER_S,
    SCALE_UP_LINKS,
    ScaleUpLink,
    intra_node_busbw_efficiency,
    intra_node_name,
)
from .names import (
    ALIASES,
    GPU_MODEL_CLAIM,
    gpu_by_name,
    gpu_from_text,
    gpu_shown,
    gpus_named_in,
    off_table_memory_gb,
    other_gpu_names,
    stated_memory_gb,
    vgpu_profile,
)
from .network import (
    ALPHA_INTER_S,
    FABRIC_EFFICIENCY,
    FABRIC_LINK_LAYERS,
    FABRIC_NAMES,
    FABRICS,
    INFINIBAND_RATE_GBPS,
    NODES_PER_LEAF,
    RDMA_FABRICS,
    TOPOLOGIES,
    expected_node_busbw_gbytes,
    fabric_efficiency,
    fabric_name,
    port_link_layer,
)

__all__ = [
    "ALIASES",
    "ALPHA_INTER_S",
    "FABRICS",
    "FABRIC_EFFICIENCY",
    "FABRIC_LINK_LAYERS",
    "FABRIC_NAMES",
    "GPU",
    "GPUS",
    "INFINIBAND_RATE_GBPS",
    "INTRA_NODE_KINDS",
    "INTRA_NODE_NAMES",
    "MESH_NAMES_BY_VENDOR",
    "MIB",
    "NODES_PER_LEAF",
    "NVLINK_BRIDGE_GBYTES_PER_S",
    "NVLINK_MESH_BUSBW_EFFICIENCY",
    "NVSWITCH_BUSBW_EFFICIENCY",
    "PCIE_BUSBW_EFFICIENCY",
    "PCIE_GEN5_PRACTICAL_GBYTES_PER_S",
    "RDMA_FABRICS",
    "SCALE_UP_LINKS",
    "ScaleUpLink",
    "TOPOLOGIES",
    "expected_node_busbw_gbytes",
    "fabric_efficiency",
    "fabric_name",
    "port_link_layer",
    "gpu_by_name",
    "GPU_MODEL_CLAIM",
    "gpu_from_text",
    "other_gpu_names",
    "off_table_memory_gb",
    "stated_memory_gb",
    "vgpu_profile",
    "gpu_shown",
    "gpus_named_in",
    "intra_node_busbw_efficiency",
    "intra_node_name",
]
