"""deploy/ against the server itself (issue 17): every option a manifest or the compose file
passes is one `poker-server` takes and parses into a valid Config, the ports and probes are
the server's, nginx has a path per process matching its --public-url, Redis is append-only,
and Kubernetes' grace period covers the drain. The YAML is read with `tests.cluster.yamlish`
(the subset the files are written in)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from server.cli import build_parser, config_from_args
from server.config import Config
from server.main import drain_budget
from tests.cluster.yamlish import load_all

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def server_config(args: list[str], env: dict[str, str]) -> Config:
    """The Config `poker-server args` builds, with `$(VAR)` / `${VAR:-default}` expanded."""
    def expand(text: str) -> str:
        text = re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], text)
        return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m.group(1), m.group(2)), text)
    argv = [expand(str(a)) for a in args]
    parsed = build_parser().parse_args(argv)  # an unknown option exits (SystemExit)
    return config_from_args(parsed, argv)


def test_compose_runs_three_cluster_processes_behind_nginx() -> None:
    (compose,) = load_all((DEPLOY / "compose.yaml").read_text())
    services: dict[str, Any] = compose["services"]
    servers = {name: s for name, s in services.items() if name.startswith("server-")}
    assert len(servers) == 3
    nginx_conf = (DEPLOY / "nginx.conf").read_text()
    nodes = set()
    for name, service in servers.items():
        config = server_config(service["command"], {})
        assert config.node == name and config.redis_url == "redis://redis:6379/0"
        assert config.public_url == f"ws://127.0.0.1:8080/node/{name}/ws"
        # the client's address from X-Forwarded-For, only on nginx's fixed address (issue 23)
        assert config.trusted_proxies == (services["nginx"]["networks"]["poker"]
                                          ["ipv4_address"] + "/32",)
        assert service["networks"] == ["poker"]
        nodes.add(config.node)
        # nginx: the process in the pool, and its own path to its /ws
        assert f"server {name}:{config.port}" in nginx_conf
        location = re.search(rf"location = /node/{name}/ws \{{\s*proxy_pass http://(\w+)/ws;",
                             nginx_conf)
        assert location is not None, name
        assert re.search(rf"upstream {location.group(1)} \{{\s*server {name}:{config.port};",
                         nginx_conf)
        assert "ports" not in service  # only nginx is published
        probe = " ".join(service["healthcheck"]["test"])
        assert f"127.0.0.1:{config.port}/readyz" in probe
        grace = int(service["stop_grace_period"].rstrip("s"))
        assert grace > 2 * config.shutdown_deadline + 5
    assert len(nodes) == 3
    published = [name for name, s in services.items() if "ports" in s]
    assert published == ["nginx"] and services["nginx"]["ports"] == ["127.0.0.1:8080:8080"]
    assert re.search(r"listen 8080;", nginx_conf)
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]
    redis_cmd = services["redis"]["command"]
    assert redis_cmd[redis_cmd.index("--appendonly") + 1] == "yes"
    assert "appendonly yes" in (DEPLOY / "redis.conf").read_text()
    assert "Upgrade $http_upgrade" in nginx_conf and "location = /ws" in nginx_conf
    assert "X-Forwarded-For $proxy_add_x_forwarded_for;" in nginx_conf
    subnet = compose["networks"]["poker"]["ipam"]["config"][0]["subnet"]
    assert services["nginx"]["networks"]["poker"]["ipv4_address"].startswith(
        subnet.rsplit(".", 1)[0] + ".")


def test_systemd_unit_trusts_the_local_proxy_only() -> None:
    unit = (DEPLOY / "poker-server.service").read_text()
    command = re.search(r"ExecStart=(.*?)\n(?!\s)", unit.replace("\\\n", " "), re.S)
    assert command is not None
    config = server_config(command.group(1).split()[1:], {})
    assert config.trusted_proxies == ("127.0.0.1/32", "::1/128") and config.host == "127.0.0.1"


def test_kubernetes_statefulset_service_and_budget() -> None:
    docs = {d["kind"]: d for d in load_all((DEPLOY / "k8s" / "poker.yaml").read_text())}
    assert set(docs) == {"Service", "StatefulSet", "PodDisruptionBudget"}
    service, sts, pdb = docs["Service"], docs["StatefulSet"], docs["PodDisruptionBudget"]
    assert service["spec"]["clusterIP"] == "None"  # headless: a DNS name per pod
    assert sts["spec"]["serviceName"] == service["metadata"]["name"]
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"] == labels == pdb["spec"]["selector"]["matchLabels"]
    assert pdb["spec"]["maxUnavailable"] == 1
    pod = sts["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e.get("value", "") for e in container["env"]}
    assert [e for e in container["env"] if e["name"] == "POD_NAME"][0]["valueFrom"] == {
        "fieldRef": {"fieldPath": "metadata.name"}}
    env["POD_NAME"] = f"{sts['metadata']['name']}-0"  # a StatefulSet's stable pod name
    config = server_config(container["args"], env)
    assert config.node == "poker-0"  # a stable node name per pod
    assert config.public_url == "ws://poker.example.com/node/poker-0/ws"
    assert config.trusted_proxies == ("10.0.0.0/8",)  # the proxy's pods (issue 23)
    (port,) = container["ports"]
    assert port["containerPort"] == config.port
    assert service["spec"]["ports"][0]["port"] == config.port
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["port"] == port["name"]
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    # preStop, then SIGTERM: the tables finish their hands and move (the deadline, and a last
    # move's offer), then the connections (the deadline again): all inside the grace period
    bound = int(pre_stop[1]) + drain_budget(config)
    assert pod["terminationGracePeriodSeconds"] > bound


def _variant_servers(compose: dict[str, Any]) -> dict[str, Config]:
    """Each ``server-N`` of a Redis variant's compose file: its Config, checked as the main
    file's (node, public path on the shared nginx.conf, only nginx published, drain grace)."""
    services: dict[str, Any] = compose["services"]
    nginx_conf = (DEPLOY / "nginx.conf").read_text()
    configs = {}
    for name, service in services.items():
        if not name.startswith("server-"):
            continue
        config = server_config(service["command"], {})
        assert config.node == name and f"server {name}:{config.port}" in nginx_conf
        assert config.public_url == f"ws://127.0.0.1:8080/node/{name}/ws"
        assert "ports" not in service
        assert int(service["stop_grace_period"].rstrip("s")) > 2 * config.shutdown_deadline + 5
        configs[name] = config
    assert len(configs) == 3
    assert [n for n, s in services.items() if "ports" in s] == ["nginx"]
    assert "../nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]
    return configs


def test_the_sentinel_variant_finds_the_primary_through_three_sentinels() -> None:
    """Issue 26: deploy/redis-sentinel/: a primary, two replicas of it, three sentinels
    watching it under the name the servers ask for, with a quorum of two."""
    from server.redisio import RedisURL

    here = DEPLOY / "redis-sentinel"
    (compose,) = load_all((here / "compose.yaml").read_text())
    services: dict[str, Any] = compose["services"]
    conf = (here / "sentinel.conf").read_text()
    monitor = re.search(r"^sentinel monitor (\S+) (\S+) (\d+) (\d+)$", conf, re.M)
    assert monitor is not None
    service, primary, port, quorum = monitor.groups()
    sentinels = [n for n in services if n.startswith("sentinel-")]
    assert len(sentinels) == 3 and int(quorum) == 2  # a majority of three
    assert primary in services and port == "6379"
    replicas = [n for n, s in services.items() if "--replicaof" in s.get("command", [])]
    for name in replicas:
        cmd = services[name]["command"]
        assert cmd[cmd.index("--replicaof") + 1:cmd.index("--replicaof") + 3] == [primary, port]
    assert len(replicas) == 2
    for name in [primary, *replicas]:
        assert "../redis.conf:/usr/local/etc/redis/redis.conf:ro" in services[name]["volumes"]
    for config in _variant_servers(compose).values():
        url = RedisURL.parse(config.redis_url or "")
        assert url.service == service
        assert sorted(h for h, _ in url.sentinels) == sorted(sentinels)
        assert {p for _, p in url.sentinels} == {26379}
        assert config.redis_wait_replicas == 1
    assert "appendonly yes" in (DEPLOY / "redis.conf").read_text()


def test_the_cluster_variant_creates_three_primaries_the_servers_reach() -> None:
    """Issue 26: deploy/redis-cluster/: six cluster nodes at fixed addresses, created as
    three primaries with a replica each; the servers' redis-cluster:// URL names nodes of it."""
    from server.redisio import RedisURL

    here = DEPLOY / "redis-cluster"
    (compose,) = load_all((here / "compose.yaml").read_text())
    services: dict[str, Any] = compose["services"]
    node_conf = (here / "redis-node.conf").read_text()
    assert re.search(r"^cluster-enabled yes$", node_conf, re.M)
    nodes = {}
    for name, service in services.items():
        if name.startswith("redis-"):
            addr = service["networks"]["poker"]["ipv4_address"]
            cmd = service["command"]
            assert cmd[cmd.index("--cluster-announce-ip") + 1] == addr
            assert "./redis-node.conf:/usr/local/etc/redis/cluster.conf:ro" in service["volumes"]
            nodes[name] = addr
    assert len(nodes) == 6
    create = " ".join(services["cluster-create"]["command"])
    assert "--cluster-replicas 1" in create
    assert sorted(re.findall(r"(\d+\.\d+\.\d+\.\d+):6379", create)) == sorted(nodes.values())
    for config in _variant_servers(compose).values():
        url = RedisURL.parse(config.redis_url or "")
        assert url.cluster and {h for h, _ in url.cluster} <= set(nodes.values())
