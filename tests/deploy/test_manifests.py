"""Deployment files, offline: the kustomize layouts under deploy/ (rendered with `kubectl
kustomize`, validated against the Kubernetes JSON schemas that kubernetes-validate bundles,
then checked for the properties the services rely on), the Prometheus configurations, the
Dockerfile and the compose stack."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tunefarm.backends import parse_target

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKER = ROOT / "docker"

LAYOUTS = {
    "base": DEPLOY / "base",
    "small": DEPLOY / "overlays" / "small",
    "large": DEPLOY / "overlays" / "large",
}
K8S_VERSION = "1.31"  # validated against this release's schemas (kubernetes-validate ships it)
REGISTRY = "registry.example.internal/"
UID = 10001  # the image's service user (docker/Dockerfile)
SERVICES = {"gateway", "converter", "extractor", "search", "buildfarm", "agent-cpu"}
WORKERS = {"converter", "extractor", "search", "buildfarm"}
AGENTS = {"agent-cpu"}
DEVICE_KEY = "tunefarm.io/device-key"


# --- rendering and helpers ---------------------------------------------------------------


@functools.cache
def render(layout: str) -> tuple[dict, ...]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: cannot render the kustomize layouts")
    cmd = [kubectl, "kustomize", str(LAYOUTS[layout])]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, f"kubectl kustomize {layout} failed:\n{out.stderr}"
    return tuple(doc for doc in yaml.safe_load_all(out.stdout) if doc)


def objects(layout: str, kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in render(layout) if o["kind"] == kind}


def image_name(image: str) -> str:
    """Repository of an image reference, without registry, tag or digest."""
    image = image.split("@")[0]
    last = image.rsplit("/", 1)[-1]
    return last.split(":")[0]


def generated(layout: str, kind: str, name: str) -> dict:
    """The one object kustomize generated as `name` (plus a content hash)."""
    (obj,) = [o for n, o in objects(layout, kind).items() if n.startswith(f"{name}-")]
    return obj


def pod_labels(deploy: dict) -> dict:
    return deploy["spec"]["template"]["metadata"]["labels"]


def pod_spec(deploy: dict) -> dict:
    return deploy["spec"]["template"]["spec"]


def container(deploy: dict) -> dict:
    """The only container of a tunefarm pod."""
    (c,) = pod_spec(deploy)["containers"]
    return c


def containers(deploy: dict) -> list[dict]:
    spec = pod_spec(deploy)
    return spec.get("initContainers", []) + spec["containers"]


def tunefarm_deployments(layout: str) -> dict[str, dict]:
    """Deployments that run the tunefarm image."""
    return {
        name: d
        for name, d in objects(layout, "Deployment").items()
        if any(image_name(c["image"]) == "tunefarm" for c in containers(d))
    }


def args_of(deploy: dict) -> list[str]:
    return container(deploy).get("args", [])


def option(args: list[str], flag: str) -> str:
    return args[args.index(flag) + 1]


def port_number(c: dict, port: int | str) -> int:
    """A container port given by number or by name."""
    if isinstance(port, int):
        return port
    (number,) = [p["containerPort"] for p in c.get("ports", []) if p["name"] == port]
    return number


def quantity(value) -> float:
    """A Kubernetes quantity ("500m", "2", "4Gi") as a number."""
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(value))
    assert match, value
    return float(match[1]) * units.get(match[2], 1)


# --- Kubernetes: schemas and wiring ---------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_object_matches_the_kubernetes_schema(layout):
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate")
    errors = []
    for obj in render(layout):
        try:
            kv.validate(obj, K8S_VERSION, strict=True)
        except (kv.ValidationError, kv.SchemaNotFoundError) as exc:
            errors.append(f"{obj['kind']}/{obj['metadata']['name']}: {exc.message}")
    assert not errors, "\n".join(errors)


def test_schema_validation_rejects_unknown_fields():
    """Strict mode is what catches a misspelt field; make sure it is on."""
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate")
    deploy = yaml.safe_load(yaml.safe_dump(objects("base", "Deployment")["gateway"]))
    pod_spec(deploy)["containers"][0]["livenesProbe"] = {}
    with pytest.raises(kv.ValidationError):
        kv.validate(deploy, K8S_VERSION, strict=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_objects_and_wiring(layout):
    assert set(tunefarm_deployments(layout)) == SERVICES
    assert {"redis", "prometheus"} <= set(objects(layout, "Deployment"))
    assert {"gateway", "redis"} <= set(objects(layout, "Service"))
    for obj in render(layout):
        assert obj["kind"] == "Namespace" or obj["metadata"]["namespace"] == "tunefarm", obj
    deployments = objects(layout, "Deployment").values()
    for d in deployments:
        selector = d["spec"]["selector"]["matchLabels"]
        assert selector.items() <= pod_labels(d).items()
    # Every Service selects pods, on a port they declare.
    deployments = [*deployments, *objects(layout, "StatefulSet").values()]
    for svc in objects(layout, "Service").values():
        pods = [d for d in deployments if svc["spec"]["selector"].items() <= pod_labels(d).items()]
        assert pods, f"Service {svc['metadata']['name']} selects no pods"
        for port in svc["spec"]["ports"]:
            for d in pods:
                port_number(pod_spec(d)["containers"][0], port["targetPort"])
    # The Ingress routes to the gateway Service.
    (ingress,) = objects(layout, "Ingress").values()
    (path,) = ingress["spec"]["rules"][0]["http"]["paths"]
    backend = path["backend"]["service"]
    assert backend["name"] == "gateway"
    gateway_ports = objects(layout, "Service")["gateway"]["spec"]["ports"]
    assert backend["port"]["name"] in {p["name"] for p in gateway_ports}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_deployments_have_probes_resources_and_run_as_non_root(layout):
    for name, d in objects(layout, "Deployment").items():
        pod = pod_spec(d)
        for c in containers(d):
            where = f"{name}/{c['name']}"
            if c in pod["containers"]:  # init containers run to completion: no probes
                assert "livenessProbe" in c and "readinessProbe" in c, where
            for part in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(c["resources"].get(part, {})), f"{where} {part}"
            pod_default = pod["securityContext"].get("runAsNonRoot")
            non_root = c.get("securityContext", {}).get("runAsNonRoot", pod_default)
            assert non_root is True, where
            assert c["securityContext"]["allowPrivilegeEscalation"] is False, where
    for name, d in tunefarm_deployments(layout).items():
        assert pod_spec(d)["securityContext"]["runAsUser"] == UID, name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_probe_endpoints(layout):
    for name, d in tunefarm_deployments(layout).items():
        c = container(d)
        live, ready = c["livenessProbe"]["httpGet"], c["readinessProbe"]["httpGet"]
        if name == "gateway":
            assert (live["path"], ready["path"]) == ("/healthz", "/readyz")
            assert port_number(c, live["port"]) == port_number(c, ready["port"]) == 8080
            assert option(args_of(d), "--port") == "8080"
        else:
            assert live["path"] == ready["path"] == "/metrics", name
            assert port_number(c, live["port"]) == port_number(c, ready["port"]) == 9100, name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_configuration_and_tokens(layout):
    config = generated(layout, "ConfigMap", "tunefarm-config")
    data = config["data"]
    assert data["TUNEFARM_BROKER_URL"] == "redis://redis:6379/0"
    assert data["TUNEFARM_ARTIFACTS"] == "/data/artifacts"
    assert {"TUNEFARM_PREFIX", "TUNEFARM_HEARTBEAT_TTL", "TUNEFARM_VISIBILITY_TIMEOUT"} <= set(data)
    for name, d in tunefarm_deployments(layout).items():
        c = container(d)
        refs = [e["configMapRef"]["name"] for e in c.get("envFrom", [])]
        assert refs == [config["metadata"]["name"]], name
        volumes = pod_spec(d)["volumes"]
        secrets = [v for v in volumes if v.get("secret", {}).get("secretName") == "tunefarm-tokens"]
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        if name != "gateway":
            assert not secrets and "TUNEFARM_TOKENS_FILE" not in env, name
            continue
        (volume,) = secrets
        (mount,) = [m for m in c["volumeMounts"] if m["name"] == volume["name"]]
        (item,) = volume["secret"]["items"]
        assert env["TUNEFARM_TOKENS_FILE"] == f"{mount['mountPath']}/{item['path']}"
    # Tokens are created out of band, never rendered from the repository.
    assert not objects(layout, "Secret")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_artifacts_volume_is_shared_by_every_tunefarm_pod(layout):
    pvc = objects(layout, "PersistentVolumeClaim")["artifacts"]
    assert pvc["spec"]["accessModes"] == ["ReadWriteMany"]
    for name, d in tunefarm_deployments(layout).items():
        claims = {v["name"]: v.get("persistentVolumeClaim", {}) for v in pod_spec(d)["volumes"]}
        mounts = [
            m["mountPath"]
            for m in container(d)["volumeMounts"]
            if claims[m["name"]].get("claimName") == "artifacts"
        ]
        assert mounts == ["/data/artifacts"], name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_agents_are_placed_by_device_key(layout):
    deployments = tunefarm_deployments(layout)
    for name, d in deployments.items():
        selector = pod_spec(d).get("nodeSelector", {})
        if name not in AGENTS:
            assert DEVICE_KEY not in selector, name
            continue
        assert args_of(d)[0] == "agent"
        assert selector[DEVICE_KEY] == option(args_of(d), "--key"), name
    assert option(args_of(deployments["agent-cpu"]), "--key") == "cpu-x86"
    assert option(args_of(deployments["agent-cpu"]), "--target") == "cpu"
    for name, d in deployments.items():
        assert "nvidia.com/gpu" not in str(pod_spec(d)), name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_agent_serves_a_target_tunefarm_has(layout):
    """Nothing deployed advertises a device tunefarm cannot compile for: every agent's target
    has a backend (an agent with any other exits at start-up)."""
    for name, d in tunefarm_deployments(layout).items():
        if name in AGENTS:
            parse_target(option(args_of(d), "--target"))


def test_the_gpu_pool_serves_the_cuda_backend():
    """The GPU pool's agents serve a target the cuda backend takes; the component is opt-in
    (in no overlay), since it needs GPU nodes."""
    component = DEPLOY / "components" / "gpu-pool"
    text = (component / "agent-gpu.yaml").read_text()
    assert "NOT USABLE YET" not in text
    (agent,) = [d for d in yaml.safe_load_all(text) if d and d.get("kind") == "Deployment"]
    args = agent["spec"]["template"]["spec"]["containers"][0]["args"]
    assert str(parse_target(option(args, "--target"))) == "cuda -arch=sm_90"
    for layout in LAYOUTS.values():
        kustomization = yaml.safe_load((layout / "kustomization.yaml").read_text())
        assert "components" not in kustomization, layout


def test_the_vta_pool_serves_vta_jobs(tmp_path):
    """The VTA pool's agents serve the vta target (its simulator needs no special node), and
    the base with the component renders to objects that match the Kubernetes schemas."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: cannot render the kustomize layouts")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    base, pool = (os.path.relpath(DEPLOY / p, overlay) for p in ("base", "components/vta-pool"))
    (overlay / "kustomization.yaml").write_text(f"resources: [{base}]\ncomponents: [{pool}]\n")
    out = subprocess.run([kubectl, "kustomize", str(overlay)], capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    docs = [d for d in yaml.safe_load_all(out.stdout) if d]
    (agent,) = [
        d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "agent-vta"
    ]
    args = container(agent)["args"]
    assert args[0] == "agent" and option(args, "--key") == "vta-sim"
    assert str(parse_target(option(args, "--target"))) == "vta"
    assert "nvidia.com/gpu" not in str(pod_spec(agent))
    mounts = {m["mountPath"] for m in container(agent)["volumeMounts"]}
    assert {"/data/artifacts", "/tmp"} <= mounts  # the store, and TUNEFARM_CACHE for the sim
    kv = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate")
    kv.validate(agent, K8S_VERSION, strict=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_buildfarm_scales_on_cpu(layout):
    (hpa,) = objects(layout, "HorizontalPodAutoscaler").values()
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "buildfarm",
    }
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    buildfarm = objects(layout, "Deployment")["buildfarm"]
    assert "replicas" not in buildfarm["spec"], "the autoscaler owns the build farm's replicas"
    # One gcc per CPU: the worker's concurrency matches its CPU limit.
    c = container(buildfarm)
    assert quantity(option(args_of(buildfarm), "--concurrency")) == quantity(
        c["resources"]["limits"]["cpu"]
    )


REPLICATED = ("gateway", "converter", "extractor", "search", "agent-cpu")
EXPECTED = {  # replicas of REPLICATED, in order; the build farm autoscaler's bounds
    "base": ((2, 1, 1, 2, 1), (2, 8)),
    "small": ((1, 1, 1, 1, 1), (1, 3)),
    "large": ((3, 2, 2, 4, 4), (4, 32)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_sizes(layout):
    replicas, bounds = EXPECTED[layout]
    deployments = objects(layout, "Deployment")
    assert tuple(deployments[n]["spec"]["replicas"] for n in REPLICATED) == replicas
    (hpa,) = objects(layout, "HorizontalPodAutoscaler").values()
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == bounds


def test_overlays_resize_storage_and_pods():
    def storage(layout):
        pvc = objects(layout, "PersistentVolumeClaim")["artifacts"]
        return quantity(pvc["spec"]["resources"]["requests"]["storage"])

    def cpu_request(layout, name):
        deploy = objects(layout, "Deployment")[name]
        return quantity(container(deploy)["resources"]["requests"]["cpu"])

    assert storage("small") < storage("base") < storage("large")
    for name in ("gateway", "search", "buildfarm"):
        assert cpu_request("large", name) > cpu_request("base", name), name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_images_are_pinned_and_come_from_the_overlay_registry(layout):
    workloads = [*objects(layout, "Deployment").values(), *objects(layout, "StatefulSet").values()]
    images = [c["image"] for d in workloads for c in containers(d)]
    for image in images:
        tag = image.rsplit("/", 1)[-1].partition(":")[2]
        assert tag and tag != "latest", image
    if layout == "base":
        assert {i for i in images if image_name(i) == "tunefarm"} == {"tunefarm:0.1.0"}
    else:
        assert all(i.startswith(REGISTRY) for i in images), images


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tunefarm_pods_are_scraped(layout):
    for name, d in tunefarm_deployments(layout).items():
        notes = d["spec"]["template"]["metadata"].get("annotations", {})
        c = container(d)
        assert notes.get("prometheus.io/scrape") == "true", name
        assert notes.get("prometheus.io/path") == "/metrics", name
        assert int(notes["prometheus.io/port"]) in {p["containerPort"] for p in c["ports"]}, name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_record_store_is_postgres_with_its_password_from_a_secret(layout):
    (pg,) = objects(layout, "StatefulSet").values()
    c = container(pg)
    assert c["readinessProbe"]["exec"]["command"][0] == "pg_isready"
    assert pg["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
    assert pod_spec(pg)["securityContext"]["runAsNonRoot"] is True
    store = generated(layout, "ConfigMap", "tunefarm-config")["data"]["TUNEFARM_STORE"]
    assert store.startswith("postgresql://tunefarm@postgres:5432/")
    for name in ("search", "gateway", "postgres"):
        d = pg if name == "postgres" else objects(layout, "Deployment")[name]
        env = container(d).get("env", [])
        refs = [
            e["valueFrom"]["secretKeyRef"]
            for e in env
            if "valueFrom" in e and e["name"] in ("PGPASSWORD", "POSTGRES_PASSWORD")
        ]
        assert refs == [{"name": "tunefarm-postgres", "key": "password"}], name


@pytest.mark.parametrize("layout", LAYOUTS)
def test_pods_that_open_the_record_store_migrate_its_schema_first(layout):
    """An upgrade that brings a new schema must not leave search and gateway pods failing on
    the old one ("run tunefarm records migrate"): each runs the migration as an init
    container of its own image, with the store's settings and password."""
    for name in ("search", "gateway"):
        d = objects(layout, "Deployment")[name]
        (init,) = pod_spec(d).get("initContainers", [])
        assert init["args"] == ["records", "migrate"], name
        assert init["image"] == container(d)["image"], name
        assert init["envFrom"] == container(d)["envFrom"], name
        assert [e for e in init["env"] if e["name"] == "PGPASSWORD"] == [
            e for e in container(d)["env"] if e["name"] == "PGPASSWORD"
        ], name


def test_records_migrate_reads_the_store_from_the_environment(tmp_path, monkeypatch, capsys):
    """The init containers pass no --store: `records migrate` takes $TUNEFARM_STORE."""
    from tunefarm.cli.main import main
    from tunefarm.store.schema import SCHEMA_HEAD

    monkeypatch.setenv("TUNEFARM_STORE", str(tmp_path / "farm.sqlite"))
    assert main(["records", "migrate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["to"] == SCHEMA_HEAD and doc["store"].endswith("farm.sqlite")


def test_prometheus_configuration():
    text = (DEPLOY / "prometheus" / "prometheus.yml").read_text()
    config = yaml.safe_load(text)
    (job,) = [j for j in config["scrape_configs"] if "kubernetes_sd_configs" in j]
    assert job["kubernetes_sd_configs"][0]["role"] == "pod"
    sources = {s for r in job["relabel_configs"] for s in r.get("source_labels", [])}
    for annotation in ("scrape", "port", "path"):
        assert f"__meta_kubernetes_pod_annotation_prometheus_io_{annotation}" in sources
    # Packaged by the configMapGenerator, mounted by the Prometheus Deployment, which may
    # list the pods it discovers.
    config_map = generated("base", "ConfigMap", "prometheus-config")
    assert config_map["data"]["prometheus.yml"] == text
    volumes = pod_spec(objects("base", "Deployment")["prometheus"])["volumes"]
    assert config_map["metadata"]["name"] in {v.get("configMap", {}).get("name") for v in volumes}
    (role,) = objects("base", "Role").values()
    assert any("pods" in r["resources"] and "list" in r["verbs"] for r in role["rules"])


# --- Docker ---------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    lines = [
        ln
        for ln in (DOCKER / "Dockerfile").read_text().splitlines()
        if not ln.lstrip().startswith("#")
    ]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [
        (ln.split(None, 1)[0].upper(), ln.split(None, 1)[1])
        for ln in joined.splitlines()
        if ln.strip()
    ]


def test_dockerfile():
    instructions = dockerfile_instructions()
    stages, stage_names = [], set()
    for op, rest in instructions:
        if op == "FROM":
            match = re.fullmatch(r"(?:--platform=\S+\s+)?(\S+)\s+AS\s+(\S+)", rest.strip(), re.I)
            assert match, f"unnamed stage: FROM {rest}"
            image, name = match.groups()
            if image not in stage_names:
                tag = image.rsplit("/", 1)[-1].partition(":")[2]
                assert re.search(r"\d+\.\d+\.\d+", tag) or "@sha256:" in image, image
            stage_names.add(name)
            stages.append([])
        stages[-1].append((op, rest))
    assert len(stages) >= 2
    final = dict(stages[-1])  # the last value of each instruction in the runtime stage
    user = final["USER"].split(":")[0]
    assert user not in {"root", "0"} and int(user) == UID
    assert final["ENTRYPOINT"].replace(" ", "") == '["tunefarm"]'
    assert {"8080", "9100"} <= set(final["EXPOSE"].split())
    env = " ".join(rest for op, rest in stages[-1] if op == "ENV")
    assert "TUNEFARM_ARTIFACTS=/data/artifacts" in env
    runs = " ".join(rest for op, rest in stages[-1] if op == "RUN")
    assert "gcc" in runs and "libgomp1" in runs and "tunefarm[services]" in runs


def test_dockerignore_keeps_local_state_out_of_the_context():
    patterns = {
        ln.strip()
        for ln in (DOCKER / "Dockerfile.dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    }
    assert {".git", ".venv", "build", "benchmarks/logs"} <= patterns


def test_compose_stack():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert services["redis"]["image"] == "redis:7.0.15"
    assert re.fullmatch(r"prom/prometheus:v\d+\.\d+\.\d+", services["prometheus"]["image"])
    assert re.fullmatch(r"grafana/grafana:\d+\.\d+\.\d+", services["grafana"]["image"])
    assert services["postgres"]["image"] == "postgres:15.8"
    assert "pg_isready" in services["postgres"]["healthcheck"]["test"]
    others = {"redis", "prometheus", "postgres", "grafana"}
    tunefarm = {n: s for n, s in services.items() if n not in others}
    assert {s["image"] for s in tunefarm.values()} == {"tunefarm:0.1.0"}
    for name, svc in tunefarm.items():
        assert "artifacts:/data/artifacts" in svc["volumes"], name
        assert svc["environment"]["TUNEFARM_BROKER_URL"] == "redis://redis:6379/0", name
        assert svc["environment"]["TUNEFARM_STORE"].startswith("postgresql://tunefarm@postgres")
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy", name
    (builder,) = [s for s in tunefarm.values() if "build" in s]
    context = (DOCKER / builder["build"]["context"]).resolve()
    assert context == ROOT and (context / builder["build"]["dockerfile"]).is_file()
    commands = {n: s["command"] for n, s in tunefarm.items()}
    # the one-shot schema migration, before the services that open the record store
    assert commands.pop("migrate-store") == ["records", "migrate"]
    assert tunefarm["migrate-store"]["restart"] == "no"
    for name in ("gateway", "search"):
        after = tunefarm[name]["depends_on"]["migrate-store"]["condition"]
        assert after == "service_completed_successfully", name
    assert commands["gateway"][:2] == ["serve", "gateway"]
    assert {c[1] for c in commands.values() if c[0] == "worker"} == WORKERS
    agents = [s for s in tunefarm.values() if s["command"][0] == "agent"]
    assert sum(s.get("deploy", {}).get("replicas", 1) for s in agents) == 2
    for agent in agents:
        args = agent["command"]
        assert (option(args, "--key"), option(args, "--target")) == ("local", "cpu")
    # Tokens: the operator's own file (never the example), where the gateway is told to look;
    # ports on loopback only.
    tokens_file = services["gateway"]["environment"]["TUNEFARM_TOKENS_FILE"]
    (mount,) = [v for v in services["gateway"]["volumes"] if v.split(":")[1] == tokens_file]
    assert (DOCKER / mount.split(":")[0]).resolve() == DOCKER / "tokens"
    for service in services.values():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), port
    # Prometheus scrapes every tunefarm service by its DNS name.
    prom_mount = services["prometheus"]["volumes"][0].split(":")[0]
    prom = yaml.safe_load((DOCKER / prom_mount).read_text())
    names = {
        n for j in prom["scrape_configs"] for sd in j.get("dns_sd_configs", []) for n in sd["names"]
    }
    assert names == set(commands)  # the long-running ones


def test_example_tokens_are_refused_as_they_are():
    """The example file shows the format; the gateway refuses its public secrets, so a stack
    cannot run with them."""
    lines = (DOCKER / "tokens.example").read_text().splitlines()
    entries = [ln.split() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    assert entries and all(e[0].startswith("change-me") for e in entries)
    auth = pytest.importorskip("tunefarm_services.gateway.auth")
    with pytest.raises(auth.TokensFileError, match="example token"):
        auth.load_tokens(str(DOCKER / "tokens.example"))
    text = (DOCKER / "tokens.example").read_text()
    mine = text.replace("change-me-admin-0000000000", "a" * 24).replace(
        "change-me-metrics", "b" * 17
    )
    ring = auth.parse_tokens(mine)
    assert len(ring) == 2 and ring.find("b" * 17 + "-00000000").allows("metrics")
