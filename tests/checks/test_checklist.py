"""The buyer's checklist answered from facts, evidence and findings."""

from __future__ import annotations

from checks.checklist import QUESTIONS, assumption_questions, checklist
from checks.rules import run_rules
from providers.facts import GROUPS
from tests.checks.helpers import WORKLOAD_175B, ev, good_offering, ib_ports, port


def by_key(items: list[dict]) -> dict[str, dict]:
    return {item["key"]: item for item in items}


def test_every_question_has_the_documented_shape():
    items = checklist(good_offering(), [], [])
    assert len(items) == len(QUESTIONS) + len(assumption_questions(good_offering()))
    assert len(QUESTIONS) >= 10
    for item in items:
        assert set(item) >= {"question", "why", "answer", "status", "refs"}
        assert item["status"] in ("answered", "unknown", "concern")


def test_a_fully_published_offering_answers_the_six_trap_questions():
    items = by_key(checklist(good_offering(), run_rules(good_offering()), []))
    for key in ("gpus", "fabric", "mesh", "failures", "billing", "storage", "traffic"):
        assert items[key]["status"] == "answered", key
    assert "8 x 400 Gb/s" in items["fabric"]["answer"]
    assert "$0.07 per GB-month" in items["storage"]["answer"]
    assert "Reserved — 6 months: $2.4/GPU-h, billed per month" in items["billing"]["answer"]
    # a plan's kind in words, never its code; a name that starts with the kind is not repeated
    assert items["billing"]["answer"].startswith("on demand: $3/GPU-h, billed per hour, min 1 node;")
    assert items["acceptance"]["status"] == "unknown"  # no uploads yet


def test_unpublished_facts_are_unknown_and_traps_are_concerns():
    off = {"slug": "vague", "name": "Vague GPU cloud", "fabric": "ethernet", "billing_plans": []}
    findings = run_rules(off, workload=WORKLOAD_175B)
    items = by_key(checklist(off, findings, []))
    assert items["fabric"]["status"] == "concern"
    assert "Inter-node fabric is plain TCP Ethernet" in items["fabric"]["answer"]
    assert items["failures"]["status"] == "concern"  # nothing published, 100B+ job
    assert items["sla"]["status"] == "unknown"
    assert items["billing"]["status"] == "unknown"
    assert {"finding": "fabric-not-rdma", "severity": "critical"} in items["fabric"]["refs"]


def test_evidence_answers_questions_and_is_referenced():
    ibstat = ev(
        "ibstat",
        {"ports": ib_ports(8) + [port("mlx5_bond_0", layer="Ethernet", rate=200)]},
        "node1-ibstat.txt",
        upload_id=7,
    )
    topo = ev(
        "nvidia-smi-topo", {"gpus": 8, "full_nvlink_mesh": False, "min_nvlinks_per_pair": 0}, "topo.txt"
    )
    off = good_offering()
    items = by_key(checklist(off, run_rules(off, evidence=[ibstat, topo]), [ibstat, topo]))
    assert items["fabric"]["status"] == "answered"
    assert {"file": "node1-ibstat.txt", "upload_id": 7} in items["fabric"]["refs"]
    assert items["mesh"]["status"] == "concern" and "topo.txt" in items["mesh"]["answer"]


def test_it_accepts_finding_dicts_as_stored_by_the_api():
    off = good_offering(storage_price_usd_per_gb_month=None)
    stored = [f.as_dict() for f in run_rules(off)]
    assert by_key(checklist(off, stored, []))["storage"]["status"] == "concern"


def test_answered_only_where_every_fact_is_published_with_a_source():
    off = good_offering()
    sourced = set(GROUPS)
    items = by_key(checklist(off, [], [], sourced_groups=sourced))
    assert items["fabric"]["status"] == "answered"
    no_network_source = by_key(checklist(off, [], [], sourced_groups=sourced - {"network"}))
    assert no_network_source["fabric"]["status"] == "unknown"
    assert "Ask for a source of: Inter-node fabric" in no_network_source["fabric"]["answer"]
    assert "Ask the provider for:" not in no_network_source["fabric"]["answer"]
    partly = dict(off, gbps_per_nic=None)
    item = by_key(checklist(partly, [], []))["fabric"]
    assert item["status"] == "unknown"  # one of its facts unpublished: not answered
    assert "Ask the provider for: Speed per NIC." in item["answer"]


def test_every_assumed_fact_becomes_a_question_in_words():
    off = {"slug": "ib", "name": "IB cloud", "gpu": "H100-SXM-80GB", "fabric": "infiniband"}
    items = by_key(checklist(off, [], []))
    nics = items["assumed-nics_per_node"]
    assert nics["status"] == "unknown"
    assert nics["question"].startswith("GPU-fabric NICs per node: not published")
    assert "1 per GPU" in nics["answer"]
    assert "Speed per NIC" in items["assumed-gbps_per_nic"]["question"]
    assert "400 Gb/s" in items["assumed-gbps_per_nic"]["answer"]
    assert "16,384 GPUs in one cluster" in items["assumed-max_nodes"]["answer"]
    assert "assumed-fabric" not in items  # published
    for item in items.values():
        text = item["question"] + item["why"] + item["answer"]
        assert "None" not in text and "{" not in text and "§" not in text and "DESIGN" not in text


def test_an_assumed_value_is_named_never_written_as_its_code() -> None:
    """The question for an unpublished fact states the assumed value as a buyer reads it: the interconnect and
    fabric by their names (an AMD node's mesh by Infinity Fabric), the oversubscription as 1:1."""
    questions = {q["key"]: q for q in assumption_questions({"gpu": "MI300X-192GB", "gpus_per_node": 8})}
    why = {key: str(q["why"]) for key, q in questions.items()}
    assert "assumes full-mesh (Infinity Fabric)," in why["assumed-intra_node"]
    assert "assumes RoCE," in why["assumed-fabric"]
    assert "assumes 1:1," in why["assumed-oversubscription"]
    text = " ".join(why.values()) + " ".join(str(q["answer"]) for q in questions.values())
    assert "nvlink-mesh" not in text and "assumes roce" not in text and "1 :1" not in text
    nvidia = {q["key"]: str(q["why"]) for q in assumption_questions({"gpu": "H100-SXM-80GB"})}
    assert "assumes full-mesh (NVSwitch)," in nvidia["assumed-intra_node"]


def test_the_mesh_question_is_asked_in_the_gpu_vendors_terms() -> None:
    """An AMD node's mesh is proved with rocm-smi, not nvidia-smi; an NVIDIA node's question is unchanged."""
    amd = {a["key"]: a for a in checklist({"gpu": "MI300X-192GB", "gpus_per_node": 8}, [])}["mesh"]
    assert "Infinity Fabric" in str(amd["question"]) and "rocm-smi --showtopo" in str(amd["question"])
    assert "nvidia-smi" not in str(amd["question"]) + str(amd["why"])
    nvidia = {a["key"]: a for a in checklist({"gpu": "H100-SXM-80GB", "gpus_per_node": 8}, [])}["mesh"]
    assert "nvidia-smi topo -m" in str(nvidia["question"])
    ascend = {a["key"]: a for a in checklist({"gpu": "Ascend-910B-64GB", "gpus_per_node": 8}, [])}["mesh"]
    assert "HCCS" in str(ascend["question"]) and "npu-smi info -t topo" in str(ascend["question"])
    assert "nvidia-smi" not in str(ascend["question"]) + str(ascend["why"])


def test_an_amd_or_huawei_domain_is_a_scale_up_domain_in_the_checklist() -> None:
    """The mesh answer and the question for an unpublished domain name it without NVLink off NVIDIA."""
    for gpu in ("MI300X-192GB", "Ascend-910B-64GB"):
        mesh = {a["key"]: a for a in checklist({"gpu": gpu, "gpus_per_node": 8, "nvlink_domain_gpus": 8}, [])}
        answer = str(mesh["mesh"]["answer"])
        assert "scale-up domain 8 GPUs" in answer and "NVLink" not in answer, answer
        missing = {a["key"]: a for a in checklist({"gpu": gpu, "gpus_per_node": 8}, [])}["mesh"]
        assert "scale-up domain not published" in str(missing["answer"]), missing["answer"]
        assert "NVLink" not in str(missing["answer"])
    nvidia = {a["key"]: a for a in checklist({"gpu": "H100-SXM-80GB", "nvlink_domain_gpus": 8}, [])}
    assert "NVLink domain 8 GPUs" in str(nvidia["mesh"]["answer"])


def test_answers_name_codes_and_never_hang_a_unit_on_not_published() -> None:
    """An answer reads "Fabric InfiniBand", "full-mesh (NVSwitch)", "Slurm, Kubernetes", never the catalog's
    codes; a fact that is not published is named ("bandwidth per GPU not published"), never followed by the
    words around a value ("not published per GPU", "not published x not published per node")."""
    published = {
        "gpu": "H100-SXM-80GB",
        "gpus_per_node": 8,
        "intra_node": "nvswitch",
        "intra_node_gbytes_per_s": 450.0,
        "nvlink_domain_gpus": 8,
        "fabric": "infiniband",
        "nics_per_node": 8,
        "gbps_per_nic": 400,
        "schedulers": ["slurm", "kubernetes"],
    }
    items = {a["key"]: str(a["answer"]) for a in checklist(published, [])}
    assert items["fabric"].startswith("Fabric InfiniBand, 8 x 400 Gb/s per node;"), items["fabric"]
    assert items["mesh"] == "Intra-node full-mesh (NVSwitch), 450 GB/s per GPU, NVLink domain 8 GPUs."
    assert items["gpus"].startswith("NVIDIA H100 SXM"), items["gpus"]
    assert "8 per node" in items["gpus"] and "schedulers Slurm, Kubernetes" in items["topology"]
    empty = {a["key"]: str(a["answer"]) for a in checklist({"gpu": "MI300X-192GB", "nics_per_node": 8}, [])}
    text = " ".join(empty.values())
    for words in ("not published per", "not published x", "not published GPUs", "not published included"):
        assert words not in text, (words, text)
    assert "MI300X-192GB" not in text
    assert "8 NICs per node, their speed not published" in empty["fabric"]
    assert "bandwidth per GPU not published, scale-up domain not published" in empty["mesh"]
    assert "GPUs per node not published, nodes in one fabric not published" in empty["gpus"]


def test_a_billing_plan_is_named_by_its_kind_in_words() -> None:
    plans = [
        {"kind": "reserved", "name": "EC2 Capacity Block (us-east-1)", "price_usd_per_gpu_hour": 4.916,
         "granularity": "hour", "upfront_pct": 100.0},
        {"kind": "spot", "name": "Spot (North America)", "price_usd_per_gpu_hour": 2.46,
         "granularity": "hour"},
        {"kind": "cluster-cycle", "price_usd_per_gpu_hour": 2.69, "granularity": "cycle", "cycle_days": 30},
        {"kind": "on-demand", "name": "On-demand us-east-1", "granularity": None},
    ]  # fmt: skip
    answer = str({a["key"]: a for a in checklist({"billing_plans": plans}, [])}["billing"]["answer"])
    assert answer == (
        "Reserved — EC2 Capacity Block (us-east-1): $4.916/GPU-h, billed per hour, 100% upfront; "
        "Spot (North America): $2.46/GPU-h, billed per hour; "
        "Cluster cycle: $2.69/GPU-h, billed per cycle, cycle 30 days; "
        "On-demand us-east-1: price not published, billed by a unit not published. Ask the provider for: "
        "on-demand price."
    )
