"""deploy/: the Kubernetes manifests, the Grafana dashboard and the alert rules, checked offline.

Core manifests against the Kubernetes JSON schemas (`kubernetes-validate`); custom resources
against the fields their projects document (lists below, written from the KubeRay API
reference and the Prometheus Operator API reference); ports, service names, flags and
environment variables against what the code reads (the `mtt` argument parser, Ray's own
`ray start` options and constants); every metric a panel or an alert queries against what the
code exports.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml
from prometheus_client import CollectorRegistry

from orchestrator.cli.main import build_parser
from orchestrator.views.metrics import TournamentMetrics
from rng_service.server import Metrics as DeckServiceMetrics
from rng_service.store.metered import StoreMetrics

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
BASE = K8S / "base"
OVERLAYS = sorted(p for p in (K8S / "overlays").iterdir() if p.is_dir())
DASHBOARD = BASE / "monitoring" / "mtt-dashboard.json"
RULES = BASE / "monitoring" / "prometheusrule.yaml"
RUNBOOK = ROOT / "docs" / "RUNBOOK.md"
KUBERNETES_VERSION = "1.32.0"  # the oldest Kubernetes the manifests are checked against

# --- documented fields of the custom resources ------------------------------------------
# KubeRay API reference (ray.io/v1): RayClusterSpec, HeadGroupSpec, WorkerGroupSpec. A pod
# `template` is checked against the Kubernetes PodTemplateSpec schema instead.
POD_TEMPLATE = "pod template"
RAYCLUSTER_SPEC: dict[str, Any] = {
    "authOptions": {"mode": None},
    "suspend": None,
    "managedBy": None,
    "upgradeStrategy": {"type": None},
    "autoscalerOptions": None,
    "headServiceAnnotations": None,
    "enableInTreeAutoscaling": None,
    "gcsFaultToleranceOptions": None,
    "rayVersion": None,
    "headGroupSpec": {
        "serviceType": None,
        "headService": None,
        "enableIngress": None,
        "rayStartParams": None,
        "template": POD_TEMPLATE,
    },
    "workerGroupSpecs": [
        {
            "suspend": None,
            "groupName": None,
            "replicas": None,
            "minReplicas": None,
            "maxReplicas": None,
            "idleTimeoutSeconds": None,
            "rayStartParams": None,
            "template": POD_TEMPLATE,
            "scaleStrategy": {"workersToDelete": None},
            "numOfHosts": None,
        }
    ],
}
# Prometheus Operator API reference (monitoring.coreos.com/v1).
_ENDPOINT = dict.fromkeys(
    [
        "port",
        "targetPort",
        "path",
        "scheme",
        "params",
        "interval",
        "scrapeTimeout",
        "honorLabels",
        "honorTimestamps",
        "relabelings",
        "metricRelabelings",
        "tlsConfig",
        "bearerTokenSecret",
        "authorization",
        "basicAuth",
        "followRedirects",
        "enableHttp2",
    ]
)
_MONITOR = dict.fromkeys(
    [
        "jobLabel",
        "podTargetLabels",
        "selector",
        "namespaceSelector",
        "sampleLimit",
        "targetLimit",
        "labelLimit",
        "labelNameLengthLimit",
        "labelValueLengthLimit",
        "attachMetadata",
        "scrapeProtocols",
        "scrapeClass",
    ]
)
SERVICEMONITOR_SPEC: dict[str, Any] = {**_MONITOR, "targetLabels": None, "endpoints": [_ENDPOINT]}
PODMONITOR_SPEC: dict[str, Any] = {
    **_MONITOR,
    "podMetricsEndpoints": [{**_ENDPOINT, "portNumber": None}],
}
PROMETHEUSRULE_SPEC: dict[str, Any] = {
    "groups": [
        {
            "name": None,
            "interval": None,
            "limit": None,
            "labels": None,
            "query_offset": None,
            "partial_response_strategy": None,
            "rules": [
                dict.fromkeys(
                    ("record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations")
                )
            ],
        }
    ]
}
CUSTOM = {
    ("ray.io/v1", "RayCluster"): RAYCLUSTER_SPEC,
    ("monitoring.coreos.com/v1", "ServiceMonitor"): SERVICEMONITOR_SPEC,
    ("monitoring.coreos.com/v1", "PodMonitor"): PODMONITOR_SPEC,
    ("monitoring.coreos.com/v1", "PrometheusRule"): PROMETHEUSRULE_SPEC,
}

# Ray's own metrics the Ray row queries, as docs.ray.io "System Metrics" lists them
# (exported by each node's metrics agent on `--metrics-export-port`).
RAY_SYSTEM_METRICS = {
    "ray_tasks",
    "ray_actors",
    "ray_resources",
    "ray_object_store_memory",
    "ray_node_cpu_utilization",
    "ray_node_mem_used",
}
# Agreed with the front door (issue 7) in the metric names note; replaced by the names found
# in orchestrator/frontdoor/ as soon as that package exists (see `front_door_metrics`).
FRONT_DOOR_AGREED = {
    "mtt_players_connected",
    "mtt_action_timeouts_total",
    "mtt_action_roundtrip_seconds",
    "mtt_grpc_requests_total",
    "mtt_grpc_request_seconds",
}
PROMETHEUS_BUILTIN = {"up"}  # made by Prometheus for every scrape target

# The alerts issue 8 asks for.
REQUIRED_ALERTS = {
    "MttDuplicateDeck",
    "MttFouledDeck",
    "MttNodeLost",
    "MttTableRestartsSpiking",
    "MttReportHandlingSlow",
    "MttStoreUnavailable",
    "MttDeckServiceDown",
    "MttActionTimeoutRatioHigh",
}
DASHBOARD_ROWS = ["Tournament progress", "Table health", "Decks", "Front door", "Ray"]


# --- loading -------------------------------------------------------------------------------


def load_kustomization(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((folder / "kustomization.yaml").read_text())
    return data


def base_documents() -> list[dict[str, Any]]:
    """The base's resources as written (the generated dashboard ConfigMap is checked apart)."""
    documents = []
    for resource in load_kustomization(BASE)["resources"]:
        documents += [d for d in yaml.safe_load_all((BASE / resource).read_text()) if d]
    return documents


def rendered(overlay: Path) -> list[dict[str, Any]]:
    """What `kubectl kustomize` builds for an overlay (kustomize is part of kubectl)."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with its built-in kustomize) is not installed")
    built = subprocess.run(
        [kubectl, "kustomize", str(overlay)], capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stderr
    return [d for d in yaml.safe_load_all(built.stdout) if d]


def find(documents: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    for document in documents:
        if document["kind"] == kind and document["metadata"]["name"] == name:
            return document
    raise AssertionError(f"no {kind} {name}")


def containers(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if document["kind"] == "RayCluster":
        groups = [document["spec"]["headGroupSpec"], *document["spec"]["workerGroupSpecs"]]
        for group in groups:
            yield from group["template"]["spec"]["containers"]
    elif document["kind"] in ("Deployment", "StatefulSet"):
        yield from document["spec"]["template"]["spec"]["containers"]


def container_port(container: dict[str, Any], name: str) -> int:
    ports = {p.get("name"): p["containerPort"] for p in container.get("ports", ())}
    assert name in ports, f"container {container['name']} has no port named {name!r}"
    port: int = ports[name]
    return port


def check_fields(value: Any, allowed: Any, where: str) -> list[str]:
    """Fields of `value` that `allowed` (nested dicts, one-element lists) does not document."""
    if allowed is None:
        return []
    if allowed == POD_TEMPLATE:
        template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}}
        kubernetes_validate.validate(
            template | {"template": value}, KUBERNETES_VERSION, strict=True
        )
        return []
    if isinstance(allowed, list):
        assert isinstance(value, list), f"{where} should be a list"
        return [
            e
            for k, item in enumerate(value)
            for e in check_fields(item, allowed[0], f"{where}[{k}]")
        ]
    assert isinstance(value, dict), f"{where} should be a mapping"
    problems = [f"{where}.{key}" for key in value if key not in allowed]
    for key, item in value.items():
        if key in allowed:
            problems += check_fields(item, allowed[key], f"{where}.{key}")
    return problems


ALL_SETS = [pytest.param(base_documents, id="base")] + [
    pytest.param(lambda o=overlay: rendered(o), id=overlay.name) for overlay in OVERLAYS
]


# --- schemas ---------------------------------------------------------------------------------


@pytest.mark.parametrize("documents", ALL_SETS)
def test_every_manifest_validates_core_by_schema_custom_by_documented_fields(
    documents: Any,
) -> None:
    for document in documents():
        key = (document["apiVersion"], document["kind"])
        if key in CUSTOM:
            assert set(document) <= {"apiVersion", "kind", "metadata", "spec"}
            problems = check_fields(document["spec"], CUSTOM[key], f"{key[1]}.spec")
            assert not problems, f"undocumented fields: {problems}"
        else:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_the_field_check_refuses_an_undocumented_field() -> None:
    raycluster = find(base_documents(), "RayCluster", "mtt-ray")
    spec = raycluster["spec"] | {"headGroupSpec": raycluster["spec"]["headGroupSpec"] | {"cpus": 0}}
    assert check_fields(spec, RAYCLUSTER_SPEC, "spec") == ["spec.headGroupSpec.cpus"]
    with pytest.raises(kubernetes_validate.ValidationError):
        check_fields({"spec": {"containers": [{"name": "x", "imag": "y"}]}}, POD_TEMPLATE, "t")


def test_kustomization_lists_every_manifest_of_the_base() -> None:
    kustomization = load_kustomization(BASE)
    listed = {BASE / r for r in kustomization["resources"]}
    on_disk = {p for p in BASE.rglob("*.yaml") if p.name != "kustomization.yaml"}
    assert listed == on_disk
    generated = kustomization["configMapGenerator"][0]
    assert [BASE / f for f in generated["files"]] == [DASHBOARD]


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_each_overlay_puts_everything_in_its_own_namespace(overlay: Path) -> None:
    documents = rendered(overlay)
    namespace = load_kustomization(overlay)["namespace"]
    assert find(documents, "Namespace", namespace)
    for document in documents:
        if document["kind"] != "Namespace":
            assert document["metadata"]["namespace"] == namespace, document["metadata"]
    dashboard = find(documents, "ConfigMap", "mtt-grafana-dashboard")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["mtt-dashboard.json"]) == json.loads(DASHBOARD.read_text())


# --- what the code reads ---------------------------------------------------------------------


def mtt_args(container: dict[str, Any]) -> Any:
    """The container's command line, parsed by the real `mtt` parser (SystemExit if a flag is
    unknown or a value has the wrong type)."""
    assert container["command"] == ["mtt"]
    return build_parser().parse_args(container["args"])


def service_port(document: dict[str, Any], name: str) -> dict[str, Any]:
    for port in document["spec"]["ports"]:
        if port["name"] == name:
            return dict(port)
    raise AssertionError(f"service {document['metadata']['name']} has no port {name}")


def check_service_fronts(service: dict[str, Any], workload: dict[str, Any]) -> None:
    """The Service selects the workload's pods and each of its ports names a container port."""
    pod_labels = workload["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    (container,) = workload["spec"]["template"]["spec"]["containers"]
    for port in service["spec"]["ports"]:
        container_port(container, port["targetPort"])


def redis_url_matches(url: str, documents: list[dict[str, Any]]) -> None:
    parts = urlsplit(url)
    assert parts.scheme == "redis"
    redis = find(documents, "Service", parts.hostname or "")
    assert parts.port == service_port(redis, "redis")["port"]


def test_deck_service_flags_ports_and_probes_match_the_code() -> None:
    documents = base_documents()
    deployment = find(documents, "Deployment", "deck-service")
    (container,) = containers(deployment)
    args = mtt_args(container)
    assert (args.command, args.rng) == ("rng", "serve")
    assert args.host == "0.0.0.0"  # reachable from other pods
    assert args.port == container_port(container, "grpc")
    assert args.metrics_port == container_port(container, "metrics")
    for probe in ("readinessProbe", "livenessProbe"):  # grpc.health.v1, served by the server
        assert container[probe]["grpc"]["port"] == args.port
    redis_url_matches(args.store, documents)
    service = find(documents, "Service", "deck-service")
    check_service_fronts(service, deployment)


def test_front_door_wiring_matches_the_cluster() -> None:
    documents = base_documents()
    deployment = find(documents, "Deployment", "frontdoor")
    (container,) = containers(deployment)
    flags = dict(arg.removeprefix("--").split("=", 1) for arg in container["args"][1:])
    assert container["args"][0] == "serve"
    assert int(flags["port"]) == container_port(container, "grpc")
    assert int(flags["metrics-port"]) == container_port(container, "metrics")
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == int(flags["port"])
    redis_url_matches(flags["store"], documents)
    # KubeRay names the head's Service <cluster>-head-svc; 10001 is the Ray client port.
    ray = urlsplit(flags["ray-address"])
    raycluster = find(documents, "RayCluster", "mtt-ray")
    assert ray.scheme == "ray" and ray.hostname == f"{raycluster['metadata']['name']}-head-svc"
    (head,) = raycluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"]
    assert ray.port == container_port(head, "client")
    check_service_fronts(find(documents, "Service", "frontdoor"), deployment)


def test_front_door_flags_parse_with_mtt_serve() -> None:
    if "serve" not in build_parser()._subparsers._group_actions[0].choices:  # type: ignore[union-attr]
        pytest.skip("`mtt serve` (issue 7) is not merged yet: flags follow its issue text")
    (container,) = containers(find(base_documents(), "Deployment", "frontdoor"))
    args = mtt_args(container)
    assert args.metrics_port == container_port(container, "metrics")


def test_every_ray_process_may_use_the_pods_address() -> None:
    """Where mtt starts Ray it defaults RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER to "0" (Ray on
    127.0.0.1 for local runs); every pod that runs Ray sets it true, and mtt keeps that
    value."""
    from ray._private import ray_constants

    name = ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR
    documents = base_documents()
    ray_pods = [
        find(documents, "RayCluster", "mtt-ray"),
        find(documents, "Deployment", "frontdoor"),
    ]
    for document in ray_pods:
        for container in containers(document):
            env = {e["name"]: e.get("value") for e in container.get("env", ())}
            assert env.get(name) in ("1", "true"), f"{container['name']} lacks {name}=1"
    code = (
        "import os; from orchestrator.shell.driver import keep_ray_on_this_machine; "
        f"keep_ray_on_this_machine(); print(os.environ[{name!r}])"
    )
    kept = subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ | {name: "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert kept.stdout.strip() == "1"
    assert f"ENV {name}=1" in (ROOT / "Dockerfile").read_text()


def test_raycluster_head_takes_no_work_and_every_node_exports_metrics() -> None:
    from ray.scripts.scripts import start

    ray_start_options = {opt for param in start.params for opt in param.opts}
    raycluster = find(base_documents(), "RayCluster", "mtt-ray")
    spec = raycluster["spec"]
    assert spec["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    import ray

    assert spec["rayVersion"] == ray.__version__
    for group in [spec["headGroupSpec"], *spec["workerGroupSpecs"]]:
        params = group["rayStartParams"]
        unknown = {p for p in params if f"--{p}" not in ray_start_options}
        assert not unknown, f"not `ray start` options: {unknown}"
        for container in group["template"]["spec"]["containers"]:
            assert int(params["metrics-export-port"]) == container_port(container, "metrics")
    for group in spec["workerGroupSpecs"]:
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]


def test_redis_keeps_its_data_on_a_volume_with_aof() -> None:
    documents = base_documents()
    config = find(documents, "ConfigMap", "redis-config")["data"]["redis.conf"]
    settings = dict(line.split(None, 1) for line in config.splitlines() if line.strip())
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] == "always"  # Redis 7.0: no WAITAOF (docs/OPERATIONS.md)
    statefulset = find(documents, "StatefulSet", "redis")
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    (container,) = containers(statefulset)
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == settings["dir"]
    service = find(documents, "Service", "redis")
    assert statefulset["spec"]["serviceName"] == service["metadata"]["name"]
    check_service_fronts(service, statefulset)


def test_monitors_select_services_and_pods_that_serve_metrics() -> None:
    documents = base_documents()
    for monitor in (d for d in documents if d["kind"] == "ServiceMonitor"):
        wanted = monitor["spec"]["selector"]["matchLabels"].items()
        services = [
            d
            for d in documents
            if d["kind"] == "Service" and wanted <= d["metadata"]["labels"].items()
        ]
        assert services, f"ServiceMonitor {monitor['metadata']['name']} selects nothing"
        for service in services:
            for endpoint in monitor["spec"]["endpoints"]:
                service_port(service, endpoint["port"])
    (podmonitor,) = (d for d in documents if d["kind"] == "PodMonitor")
    wanted = podmonitor["spec"]["selector"]["matchLabels"].items()
    raycluster = find(documents, "RayCluster", "mtt-ray")
    groups = [raycluster["spec"]["headGroupSpec"], *raycluster["spec"]["workerGroupSpecs"]]
    for group in groups:
        assert wanted <= group["template"]["metadata"]["labels"].items()
        for container in group["template"]["spec"]["containers"]:
            for endpoint in podmonitor["spec"]["podMetricsEndpoints"]:
                container_port(container, endpoint["port"])


def test_dockerfile_exposes_the_ports_the_manifests_use() -> None:
    exposed = set()
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("EXPOSE"):
            exposed |= {int(p) for p in line.split()[1:]}
    documents = base_documents()
    for name in ("deck-service", "frontdoor"):
        for container in containers(find(documents, "Deployment", name)):
            assert {p["containerPort"] for p in container["ports"]} <= exposed


# --- dashboard and alerts ----------------------------------------------------------------------

_NOT_METRICS = {"and", "or", "unless", "bool", "offset", "inf", "nan"}


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # label values, e.g. "$tournament"
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # range selectors
    names = set()
    for match in re.finditer(r"(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*", expr):
        if not expr[match.end() :].lstrip().startswith("(") and match.group() not in _NOT_METRICS:
            names.add(match.group())
    return names


def test_metric_names_reads_names_not_functions_labels_or_ranges() -> None:
    expr = 'histogram_quantile(0.99, sum by (le, method) (rate(a_bucket{x="y_z"}[5m]))) > 0.002'
    assert metric_names(expr) == {"a_bucket"}
    assert metric_names('sum(up{job="d"}) == 0 or absent(up)') == {"up"}
    assert metric_names("b / (c + sum(rate(d[1m])))") == {"b", "c", "d"}


def sample_names(registry: CollectorRegistry) -> set[str]:
    names = set()
    for family in registry.collect():
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}
        names |= {family.name + s for s in suffixes.get(family.type, ("",))}
    return names


def expand(names: set[str]) -> set[str]:
    """Sample names of metrics known only by name (a histogram's, or a counter's)."""
    return names | {n + s for n in names for s in ("_bucket", "_count", "_sum")}


def front_door_metrics() -> set[str]:
    """The front door's metric names: from its code once merged, else as agreed."""
    package = ROOT / "orchestrator" / "frontdoor"
    if not package.is_dir():
        return expand(FRONT_DOOR_AGREED)
    found = set()
    for source in package.rglob("*.py"):
        found |= set(re.findall(r"[\"'](mtt_[a-z0-9_]+)[\"']", source.read_text()))
    return expand(found | {n + "_total" for n in found if not n.endswith("_total")})


def exported_names() -> set[str]:
    registries = [CollectorRegistry(), DeckServiceMetrics.create().registry]
    TournamentMetrics(registries[0])
    StoreMetrics(registry := CollectorRegistry())
    registries.append(registry)
    code = set().union(*(sample_names(r) for r in registries))
    return code | front_door_metrics() | RAY_SYSTEM_METRICS | PROMETHEUS_BUILTIN


def dashboard_panels() -> tuple[list[str], list[dict[str, Any]]]:
    dashboard = json.loads(DASHBOARD.read_text())
    rows = [p["title"] for p in dashboard["panels"] if p["type"] == "row"]
    return rows, [p for p in dashboard["panels"] if p["type"] != "row"]


def test_dashboard_has_its_rows_and_queries_only_exported_metrics() -> None:
    rows, panels = dashboard_panels()
    assert rows == DASHBOARD_ROWS
    exported = exported_names()
    queried: set[str] = set()
    for panel in panels:
        for target in panel["targets"]:
            names = metric_names(target["expr"])
            assert names, f"panel {panel['title']!r} queries no metric"
            unknown = names - exported
            assert not unknown, f"panel {panel['title']!r} queries {unknown}, not exported"
            queried |= names
    # Every tournament metric is on the dashboard (mtt_events_total is for ad-hoc queries).
    TournamentMetrics(registry := CollectorRegistry())
    families = {f.name for f in registry.collect()} - {"mtt_events"}
    unshown = {f for f in families if not any(q.startswith(f) for q in queried)}
    assert not unshown, f"tournament metrics no panel shows: {unshown}"


def test_panels_have_unique_ids_and_fit_the_grid() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24


def test_alerts_cover_the_issue_query_exported_metrics_and_have_runbook_sections() -> None:
    (rule,) = yaml.safe_load_all(RULES.read_text())
    alerts = [r for group in rule["spec"]["groups"] for r in group["rules"]]
    assert {a["alert"] for a in alerts} == REQUIRED_ALERTS
    headings = {
        line.removeprefix("## ").strip().lower()
        for line in RUNBOOK.read_text().splitlines()
        if line.startswith("## ")
    }
    exported = exported_names()
    for alert in alerts:
        unknown = metric_names(alert["expr"]) - exported
        assert not unknown, f"{alert['alert']} queries {unknown}, not exported"
        assert alert["labels"]["severity"] in ("warning", "critical")
        url = alert["annotations"]["runbook_url"]
        assert url.split("#")[0].endswith("docs/RUNBOOK.md")
        assert url.split("#")[1] in headings and url.split("#")[1] == alert["alert"].lower()
        if "for" in alert:
            assert re.fullmatch(r"\d+[smh]", alert["for"])


def test_job_labels_in_queries_name_scraped_services() -> None:
    """Prometheus Operator names a ServiceMonitor's job after the Service it scrapes."""
    documents = base_documents()
    jobs = set()
    for monitor in (d for d in documents if d["kind"] == "ServiceMonitor"):
        wanted = monitor["spec"]["selector"]["matchLabels"].items()
        jobs |= {
            d["metadata"]["name"]
            for d in documents
            if d["kind"] == "Service" and wanted <= d["metadata"]["labels"].items()
        }
    _, panels = dashboard_panels()
    (rule,) = yaml.safe_load_all(RULES.read_text())
    exprs = [t["expr"] for p in panels for t in p["targets"]]
    exprs += [r["expr"] for g in rule["spec"]["groups"] for r in g["rules"]]
    used = {job for expr in exprs for job in re.findall(r'job="([^"]+)"', expr)}
    assert used and used <= jobs, used - jobs


# --- alert logic, evaluated by Prometheus's own promtool --------------------------------------


def promtool() -> str:
    binary = shutil.which("promtool")
    if binary is None:
        pytest.fail("promtool is not installed (make system installs the prometheus package)")
    return binary


def rule_groups(*, annotations: bool) -> dict[str, Any]:
    (rule,) = yaml.safe_load_all(RULES.read_text())
    groups = rule["spec"]["groups"]
    if not annotations:  # promtool's unit tests compare rendered annotations verbatim
        groups = [g | {"rules": [{**r, "annotations": {}} for r in g["rules"]]} for g in groups]
    return {"groups": groups}


def test_alert_rules_and_templates_pass_promtool_check(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yml"
    rules.write_text(yaml.safe_dump(rule_groups(annotations=True)))
    checked = subprocess.run([promtool(), "check", "rules", str(rules)], capture_output=True)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()


def _fires(alert: str, at: str, series: dict[str, str], **labels: str) -> dict[str, Any]:
    return {"alert": alert, "at": at, "series": series, "labels": labels, "fires": True}


def _quiet(alert: str, at: str, series: dict[str, str]) -> dict[str, Any]:
    return {"alert": alert, "at": at, "series": series, "labels": {}, "fires": False}


_REPORT = "mtt_hand_report_seconds_bucket"
_UNAVAILABLE = 'mtt_store_errors_total{store="tournament",backend="redis",operation="append"'
# Each alert: series that must fire it (with the labels it carries) and series that must not.
ALERT_SCENARIOS = [
    _fires("MttDuplicateDeck", "3m", {"mtt_rng_duplicate_decks_total": "0 0 1 1 1"}),
    _quiet("MttDuplicateDeck", "4m", {"mtt_rng_duplicate_decks_total": "0 0 0 0 0"}),
    _fires("MttFouledDeck", "3m", {'mtt_fouled_decks_total{tournament="t"}': "0 0 2 2"}),
    _quiet("MttFouledDeck", "3m", {'mtt_fouled_decks_total{tournament="t"}': "0 0 0 0"}),
    _fires("MttDeckServiceDown", "6m", {'up{job="deck-service"}': "1 1 0 0 0 0 0"}),
    _fires(
        "MttDeckServiceDown", "4m", {'up{job="frontdoor"}': "1 1 1 1 1"}, job="deck-service"
    ),  # no deck service target at all
    _quiet("MttDeckServiceDown", "6m", {'up{job="deck-service"}': "1 1 0 1 1 1 1"}),
    _fires(
        "MttNodeLost", "3m", {'mtt_node_losses_total{tournament="t"}': "0 0 1 1"}, tournament="t"
    ),
    _quiet("MttNodeLost", "3m", {'mtt_node_losses_total{tournament="t"}': "0 0 0 0"}),
    _fires(
        "MttTableRestartsSpiking",
        "5m",
        {'mtt_table_restarts_total{tournament="t"}': "0 2 4 6 8 10"},
        tournament="t",
    ),
    _quiet(
        "MttTableRestartsSpiking", "5m", {'mtt_table_restarts_total{tournament="t"}': "0 1 1 1 2 2"}
    ),
    _fires(
        "MttReportHandlingSlow",
        "16m",
        {
            f'{_REPORT}{{tournament="t",le="0.001"}}': "0+0x20",
            f'{_REPORT}{{tournament="t",le="0.002"}}': "0+1x20",
            f'{_REPORT}{{tournament="t",le="0.005"}}': "0+100x20",
            f'{_REPORT}{{tournament="t",le="+Inf"}}': "0+100x20",
        },
        tournament="t",
    ),
    _quiet(
        "MttReportHandlingSlow",
        "16m",
        {
            f'{_REPORT}{{tournament="t",le="0.001"}}': "0+100x20",
            f'{_REPORT}{{tournament="t",le="0.002"}}': "0+100x20",
            f'{_REPORT}{{tournament="t",le="+Inf"}}': "0+100x20",
        },
    ),
    _fires(
        "MttStoreUnavailable",
        "5m",
        {_UNAVAILABLE + ',error="StoreUnavailable"}': "0 1 2 3 4 5 6"},
        store="tournament",
    ),
    _quiet("MttStoreUnavailable", "5m", {_UNAVAILABLE + ',error="LogConflict"}': "0 1 2 3 4 5 6"}),
    _fires(
        "MttActionTimeoutRatioHigh",
        "20m",
        {"mtt_action_timeouts_total": "0+10x30", "mtt_action_roundtrip_seconds_count": "0+100x30"},
    ),
    _quiet(
        "MttActionTimeoutRatioHigh",
        "20m",
        {"mtt_action_timeouts_total": "0+1x30", "mtt_action_roundtrip_seconds_count": "0+100x30"},
    ),
]


def test_each_alert_fires_on_what_it_watches_and_only_then(tmp_path: Path) -> None:
    (rule,) = yaml.safe_load_all(RULES.read_text())
    severity = {
        r["alert"]: r["labels"]["severity"] for g in rule["spec"]["groups"] for r in g["rules"]
    }
    assert {s["alert"] for s in ALERT_SCENARIOS if s["fires"]} == REQUIRED_ALERTS
    assert {s["alert"] for s in ALERT_SCENARIOS if not s["fires"]} == REQUIRED_ALERTS
    (tmp_path / "rules.yml").write_text(yaml.safe_dump(rule_groups(annotations=False)))
    tests = []
    for scenario in ALERT_SCENARIOS:
        expected = {"severity": severity[scenario["alert"]], **scenario["labels"]}
        tests.append(
            {
                "interval": "1m",
                "input_series": [{"series": s, "values": v} for s, v in scenario["series"].items()],
                "alert_rule_test": [
                    {
                        "eval_time": scenario["at"],
                        "alertname": scenario["alert"],
                        "exp_alerts": [{"exp_labels": expected}] if scenario["fires"] else [],
                    }
                ],
            }
        )
    unit = tmp_path / "alerts_test.yml"
    unit.write_text(yaml.safe_dump({"rule_files": ["rules.yml"], "tests": tests}))
    tested = subprocess.run([promtool(), "test", "rules", str(unit)], capture_output=True)
    assert tested.returncode == 0, tested.stdout.decode() + tested.stderr.decode()
